import type { IncomingMessage, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type AgentCard, type Message, Role, type TaskStatus, TaskState } from "@a2a-js/sdk";
import { type AgentExecutor, AgentEvent, DefaultRequestHandler, type ExecutionEventBus, InMemoryPushNotificationStore, InMemoryTaskStore, type RequestContext } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import express from "express";

/**
 * An upstream A2A agent built with the official SDK, serving its card, the JSON-RPC binding
 * and the HTTP+JSON binding. What it does is chosen by the first word of the message:
 *
 * - `echo <text>`: a task that works, emits an artifact `echo: <text>` and completes
 * - `hold`: a task that works and then waits until the test calls `release(taskId)`
 * - `queue`: a task that waits in submitted until released, then works and completes
 * - `progress`: as `hold`, with a second working status ("halfway there") before it waits
 * - `fail`: a task that works and then throws (the SDK reports it failed)
 * - `ask`: a task that stops in input-required; any message sent to that task then continues it
 * - `login`: a task that stops in auth-required; any message sent to that task then continues it
 * - `refuse`: a task the agent rejects
 * - `reply <text>`: a plain message, no task
 *
 * It activates the trace extension when a caller asks for it, and records every request.
 */

export const TRACE_EXTENSION = "https://example.com/a2a/ext/trace/v1";

export type AgentBinding = "JSONRPC" | "HTTP+JSON";

export interface SdkAgentOptions {
  /** The bindings it serves, preferred first; both by default. */
  bindings?: AgentBinding[];
  name?: string;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Headers;
}

export interface SdkAgent {
  /** Where its card is: `<baseUrl>/.well-known/agent-card.json`. */
  baseUrl: string;
  requests: ReceivedRequest[];
  /** Resolves with the id of the next `hold`, `queue` or `progress` task once it waits. */
  nextHeldTask(): Promise<string>;
  /** Lets a held task complete. */
  release(taskId: string): void;
  stop(): Promise<void>;
}

const PATHS: Record<AgentBinding, string> = { JSONRPC: "/a2a/jsonrpc", "HTTP+JSON": "/a2a/rest" };

function agentMessage(taskId: string, contextId: string, text: string): Message {
  return {
    messageId: crypto.randomUUID(),
    role: Role.ROLE_AGENT,
    parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
    taskId,
    contextId,
    extensions: [],
    metadata: {},
    referenceTaskIds: [],
  };
}

const textOf = (message: Message) => message.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");

class ScriptedExecutor implements AgentExecutor {
  private readonly gates = new Map<string, () => void>();
  private readonly heldWaiters: Array<(taskId: string) => void> = [];

  nextHeldTask(): Promise<string> {
    return new Promise((resolve) => this.heldWaiters.push(resolve));
  }

  release(taskId: string): void {
    this.gates.get(taskId)?.();
  }

  /** Waits for `release` (true) or a cancel (false), once `nextHeldTask` has been told the id. */
  private async heldUntilReleased(taskId: string): Promise<boolean> {
    const released = new Promise<void>((resolve) => this.gates.set(taskId, resolve));
    this.heldWaiters.shift()?.(taskId);
    await released;
    if (this.gates.get(taskId) === undefined) return false;
    this.gates.delete(taskId);
    return true;
  }

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = request;
    const status = (state: TaskState, text?: string): TaskStatus => ({ state, timestamp: new Date().toISOString(), message: text ? agentMessage(taskId, contextId, text) : undefined });
    const publishStatus = (state: TaskState, text?: string) => bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(state, text), metadata: undefined }));
    if (request.context.requestedExtensions?.includes(TRACE_EXTENSION)) request.context.addActivatedExtension(TRACE_EXTENSION);
    const [command = "", ...rest] = textOf(request.userMessage).split(" ");
    if (command === "reply") {
      bus.publish(AgentEvent.message(agentMessage(taskId, contextId, rest.join(" "))));
      return bus.finished();
    }
    // A follow-up turn (an answer to `ask`) continues the task as it stands.
    const task = request.task ?? { id: taskId, contextId, status: status(TaskState.TASK_STATE_SUBMITTED), artifacts: [], history: [request.userMessage], metadata: undefined };
    bus.publish(AgentEvent.task(task));
    const stopsAt: Record<string, TaskState> = { ask: TaskState.TASK_STATE_INPUT_REQUIRED, login: TaskState.TASK_STATE_AUTH_REQUIRED, refuse: TaskState.TASK_STATE_REJECTED };
    if (stopsAt[command] !== undefined) {
      publishStatus(stopsAt[command], `stopped at ${command}`);
      return bus.finished();
    }
    if (command === "queue" && !(await this.heldUntilReleased(taskId))) return bus.finished();
    publishStatus(TaskState.TASK_STATE_WORKING, "on it");
    if (command === "progress") publishStatus(TaskState.TASK_STATE_WORKING, "halfway there");
    if (command === "fail") throw new Error("the agent broke down");
    if ((command === "hold" || command === "progress") && !(await this.heldUntilReleased(taskId))) return bus.finished();
    const artifact = { artifactId: crypto.randomUUID(), name: "answer", description: "", parts: agentMessage(taskId, contextId, `echo: ${rest.join(" ")}`).parts, metadata: undefined, extensions: [] };
    bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact, append: false, lastChunk: true, metadata: undefined }));
    publishStatus(TaskState.TASK_STATE_COMPLETED, "done");
    bus.finished();
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const gate = this.gates.get(taskId);
    this.gates.delete(taskId);
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId: "", status: { state: TaskState.TASK_STATE_CANCELED, timestamp: new Date().toISOString(), message: undefined }, metadata: undefined }));
    gate?.();
  };
}

function cardFor(name: string, baseUrl: string, bindings: AgentBinding[]): AgentCard {
  return {
    name,
    description: "A test agent built with the A2A SDK",
    version: "1.0.0",
    supportedInterfaces: bindings.map((binding) => ({ url: `${baseUrl}${PATHS[binding]}`, protocolBinding: binding, protocolVersion: "1.0", tenant: "" })),
    provider: { organization: "Gateway tests", url: "https://example.com" },
    capabilities: { streaming: true, pushNotifications: true, extensions: [{ uri: TRACE_EXTENSION, description: "traces", required: false, params: undefined }] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
    signatures: [],
  };
}

export async function startSdkAgent({ bindings = ["JSONRPC", "HTTP+JSON"], name = "Echo agent" }: SdkAgentOptions = {}): Promise<SdkAgent> {
  const app = express();
  const server: Server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const executor = new ScriptedExecutor();
  const handler = new DefaultRequestHandler(cardFor(name, baseUrl, bindings), new InMemoryTaskStore(), executor, undefined, new InMemoryPushNotificationStore());
  const requests: ReceivedRequest[] = [];
  app.use((req: IncomingMessage & { originalUrl: string }, _res: unknown, next: () => void) => {
    const headers = new Headers();
    for (const [header, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(header, value);
    requests.push({ method: req.method ?? "", path: req.originalUrl, headers });
    next();
  });
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler }));
  if (bindings.includes("JSONRPC")) app.use(PATHS.JSONRPC, jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  if (bindings.includes("HTTP+JSON")) app.use(PATHS["HTTP+JSON"], restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    baseUrl,
    requests,
    nextHeldTask: () => executor.nextHeldTask(),
    release: (taskId) => executor.release(taskId),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
