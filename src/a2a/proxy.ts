import { A2A_ERROR_CODE, TaskNotFoundError } from "@a2a-js/sdk/errors";
import { GatewayError } from "../http/errors";
import type { CallerIdentity } from "../inference/hooks";
import { type AgentCardJson, type Binding, type UpstreamInterface, usableInterfaces } from "./agent-card";
import type { AgentRegistry, RegisteredAgent } from "./agent-registry";
import { A2A_METHODS, type A2ACall, type A2AOutcome, isCoreMethod, type StreamItem, taskIdOf } from "./protocol/call";
import { type A2AFailure, failureFromA2AError, failureFromGateway, failureFromJsonRpc } from "./protocol/failure";
import type { RpcId } from "./protocol/responses";
import { callUpstream } from "./protocol/upstream";
import { versionForUpstream } from "./protocol/version";
import { ownTasksOnly } from "./tasks/task-listing";
import { sightingInStreamEvent, sightingInTask, type TaskSighting } from "./tasks/task-sighting";
import type { TaskRecord, TaskTracker } from "./tasks/task-tracker";

export interface ProxyDeps {
  registry: AgentRegistry;
  tracker: TaskTracker;
}

/** One admitted call on its way to an agent. */
export interface InboundCall {
  agent: RegisteredAgent & { card: AgentCardJson };
  call: A2ACall;
  /** The binding the caller spoke; the upstream is called over it when the agent offers it. */
  binding: Binding;
  version: string;
  extensions?: string;
  rpcId?: RpcId;
  caller?: CallerIdentity;
  signal: AbortSignal;
}

const failed = (failure: A2AFailure): A2AOutcome => ({ kind: "failure", failure });

/** The caller's binding when the agent speaks it, else the agent's preferred one; extension methods need JSON-RPC. */
function pickInterface(card: AgentCardJson, binding: Binding, method: string): UpstreamInterface | A2AFailure {
  const interfaces = usableInterfaces(card);
  if (!isCoreMethod(method)) {
    return interfaces.find((candidate) => candidate.binding === "JSONRPC") ?? failureFromJsonRpc({ code: A2A_ERROR_CODE.METHOD_NOT_FOUND, message: `method '${method}' is not available` })!;
  }
  const chosen = interfaces.find((candidate) => candidate.binding === binding) ?? interfaces[0];
  return chosen ?? failureFromGateway(new GatewayError({ status: 502, errorType: "provider_agent_unusable", message: "the agent's card offers no interface the gateway can call" }));
}

/** Tasks reached with a virtual key stay with that key: to another caller they do not exist. */
function belongsToAnother(record: TaskRecord | undefined, caller: CallerIdentity | undefined): boolean {
  return record?.virtualKeyId !== undefined && record.virtualKeyId !== caller?.virtualKeyId;
}

function sightingInResult(method: string, value: unknown): TaskSighting | undefined {
  if (method === A2A_METHODS.sendMessage) return sightingInStreamEvent(value);
  if (method === A2A_METHODS.getTask || method === A2A_METHODS.cancelTask) return sightingInTask(value);
  return undefined;
}

/**
 * Forwards a call to the agent and mirrors every task status that comes back. A subscriber
 * gets the task's current state first: when the upstream does not open with the Task, the
 * gateway's own record of it is sent ahead of the upstream's events.
 */
export async function proxyCall(deps: ProxyDeps, inbound: InboundCall): Promise<A2AOutcome> {
  const { agent, call, caller } = inbound;
  const taskId = taskIdOf(call);
  const known = taskId ? await deps.tracker.find(agent.name, taskId) : undefined;
  if (belongsToAnother(known, caller)) return failed(failureFromA2AError(new TaskNotFoundError(`Task not found: ${taskId}`)));
  const iface = pickInterface(agent.card, inbound.binding, call.method);
  if (!("binding" in iface)) return failed(iface);
  const target = { iface, headers: deps.registry.upstreamHeaders(agent), outbound: deps.registry.policyOf(agent) };
  const options = { version: versionForUpstream(inbound.version, iface.version), extensions: inbound.extensions, rpcId: inbound.rpcId, signal: inbound.signal };
  const outcome = await callUpstream(target, call, options);
  const observe = (sighting: TaskSighting | undefined) => (sighting ? observeSafely(deps.tracker, agent.name, sighting, caller) : Promise.resolve());
  if (outcome.kind === "result" && call.method === A2A_METHODS.listTasks) return { ...outcome, value: await ownTasksOnly(deps.tracker, agent.name, caller?.virtualKeyId, call.params, outcome.value) };
  if (outcome.kind === "result") await observe(sightingInResult(call.method, outcome.value));
  if (outcome.kind !== "stream") return outcome;
  const opening = call.method === A2A_METHODS.subscribeToTask ? known : undefined;
  return { ...outcome, items: trackedItems(outcome.items, observe, opening) };
}

async function observeSafely(tracker: TaskTracker, agent: string, sighting: TaskSighting, caller: CallerIdentity | undefined): Promise<void> {
  try {
    await tracker.observe(agent, sighting, caller?.virtualKeyId);
  } catch (error) {
    console.error(`a2a: could not record task ${agent}/${sighting.taskId}`, error);
  }
}

const taskEventOf = (record: TaskRecord) => ({ task: { id: record.taskId, ...(record.contextId ? { contextId: record.contextId } : {}), status: record.status } });

async function* trackedItems(items: AsyncIterable<StreamItem>, observe: (sighting: TaskSighting | undefined) => Promise<void>, opening: TaskRecord | undefined): AsyncGenerator<StreamItem> {
  let first = true;
  for await (const item of items) {
    if ("event" in item) {
      if (first && opening && !("task" in item.event)) yield { event: taskEventOf(opening) };
      await observe(sightingInStreamEvent(item.event));
    }
    first = false;
    yield item;
  }
}
