import { type Message, Role, type SendMessageRequest, type StreamResponse, TaskState } from "@a2a-js/sdk";
import { type Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from "@a2a-js/sdk/client";
import type { TestGateway } from "./gateway";

/** Registers an upstream agent with the gateway and returns the gateway's view of it. */
export async function registerAgent(gw: TestGateway, name: string, url: string, extra: Record<string, unknown> = {}) {
  const response = await gw.admin("/api/agents", { method: "POST", json: { name, url, ...extra } });
  if (response.status !== 201) throw new Error(`registering ${name} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

/** The base URL the gateway serves an agent under; its card is `/.well-known/agent-card.json` below it. */
export const gatewayAgentUrl = (gw: TestGateway, name: string) => `${gw.url}/agents/a2a/${name}`;

export interface GatewayClientOptions {
  /** Which of the gateway's bindings the SDK client speaks. */
  transport: "JSONRPC" | "HTTP+JSON";
  /** Sent as `x-gw-vk` on every request, the card fetch included. */
  virtualKey?: string;
}

/** The A2A SDK's own client, pointed at the gateway's card for an agent. */
export async function gatewayClient(gw: TestGateway, name: string, { transport, virtualKey }: GatewayClientOptions): Promise<Client> {
  const fetchImpl: typeof fetch = Object.assign(
    (input: string | URL | Request, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      if (virtualKey) headers.set("x-gw-vk", virtualKey);
      return fetch(input, { ...init, headers });
    },
    { preconnect: fetch.preconnect },
  );
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    preferredTransports: [transport],
  });
  // The SDK resolves the well-known path against the base URL, so it needs its trailing slash.
  return factory.createFromUrl(`${gatewayAgentUrl(gw, name)}/`);
}

/** A user message in the SDK's shape. */
export function userMessage(text: string, taskId = "", contextId = ""): SendMessageRequest {
  const message: Message = {
    messageId: crypto.randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
    taskId,
    contextId,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return { tenant: "", message, configuration: undefined, metadata: undefined };
}

/** A stream event in a few words: `task:working`, `status:completed`, `artifact:echo: hi`, `message:...`. */
export function describeEvent(event: StreamResponse): string {
  const payload = event.payload;
  if (!payload) return "empty";
  const state = (value: TaskState | undefined) => TaskState[value ?? TaskState.TASK_STATE_UNSPECIFIED].replace("TASK_STATE_", "").toLowerCase();
  switch (payload.$case) {
    case "task":
      return `task:${state(payload.value.status?.state)}`;
    case "statusUpdate":
      return `status:${state(payload.value.status?.state)}`;
    case "artifactUpdate":
      return `artifact:${payload.value.artifact?.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("")}`;
    case "message":
      return `message:${payload.value.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("")}`;
  }
}

/** The task id a stream event belongs to. */
export function taskIdOfEvent(event: StreamResponse): string | undefined {
  const payload = event.payload;
  if (payload?.$case === "task") return payload.value.id;
  if (payload?.$case === "statusUpdate" || payload?.$case === "artifactUpdate") return payload.value.taskId;
  return undefined;
}
