import { expect } from "bun:test";
import { parseSSE } from "../../src/http/sse";
import type { GatewayConfig } from "../../src/config/schema";
import { eventually as waitFor } from "../support/eventually";
import { startGateway, type TestGateway, type TestRuntime } from "../support/gateway";
import { startWarpModel, type WarpModel } from "../support/warp-model";

/** The topics the mock embedding model knows: one vector axis each, plus one for "none of them". */
export const VOCABULARY = ["refund", "invoice", "weather", "outage", "latency"] as const;
export const DIMENSION = VOCABULARY.length + 1;

/** Provider key values: no response may ever contain them. */
export const SECRETS = ["sk-warp-main-secret-0042", "sk-warp-backup-secret-0043", "sk-house-secret-0044"];

export interface WarpTestbed {
  gw: TestGateway;
  model: WarpModel;
  close(): Promise<void>;
}

/**
 * The gateway with the scripted model registered twice: as the built-in `openai` provider (two
 * keys) and as the custom provider `house-llm`. Built-in providers never configured (mistral,
 * groq, ...) stay unregistered.
 */
export async function startWarpTestbed(config: GatewayConfig = {}, runtime?: TestRuntime): Promise<WarpTestbed> {
  const model = startWarpModel(VOCABULARY);
  const gw = await startGateway(config, { runtime });
  const created = await gw.admin("/api/providers", {
    method: "POST",
    json: {
      provider: "openai",
      network_config: { base_url: model.baseUrl },
      keys: [
        { id: "openai-main", value: SECRETS[0], models: ["*"] },
        { id: "openai-backup", value: SECRETS[1], models: ["*"] },
      ],
    },
  });
  expect(created.status).toBe(201);
  const custom = await gw.admin("/api/providers", {
    method: "POST",
    json: { provider: "house-llm", custom_provider_config: { base_provider_type: "openai" }, network_config: { base_url: model.baseUrl }, keys: [{ id: "house-key", value: SECRETS[2], models: ["*"] }] },
  });
  expect(custom.status).toBe(201);
  return {
    gw,
    model,
    async close() {
      await gw.close();
      model.stop();
    },
  };
}

/** A complete, enabled configuration on the scripted model; `overrides` replace fields. */
export const usableConfig = (overrides: Record<string, unknown> = {}) => ({
  enabled: true,
  provider: "openai",
  model: "gpt-4o-mini",
  embedding_provider: "openai",
  embedding_model: "text-embedding-3-small",
  embedding_dimension: DIMENSION,
  ...overrides,
});

export const putConfig = (gw: TestGateway, body: unknown, headers?: Record<string, string>) => gw.admin("/api/warp/config", { method: "PUT", json: body, headers });

export async function readConfig(gw: TestGateway): Promise<Record<string, unknown>> {
  const response = await gw.admin("/api/warp/config");
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

export async function writeConfig(gw: TestGateway, body: unknown): Promise<Record<string, unknown>> {
  const response = await putConfig(gw, body);
  const text = await response.text();
  expect({ status: response.status, text }).toMatchObject({ status: 200 });
  return JSON.parse(text) as Record<string, unknown>;
}

export interface ChatEvent {
  event: string;
  data: Record<string, unknown>;
}

/** POSTs a question to the agent and reads its whole event stream (or its error body). */
export async function chat(gw: TestGateway, body: Record<string, unknown>, headers?: Record<string, string>): Promise<{ response: Response; events: ChatEvent[] }> {
  const response = await gw.admin("/api/warp/chat", { method: "POST", json: body, headers });
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) return { response, events: [] };
  const events: ChatEvent[] = [];
  for await (const message of response.body!.pipeThrough(parseSSE())) events.push({ event: message.event ?? "message", data: JSON.parse(message.data) });
  return { response, events };
}

/** The events' names with consecutive deltas folded into one, for order assertions. */
export const eventOrder = (events: ChatEvent[]) => events.map((event) => event.event).filter((name, index, all) => name !== "delta" || all[index - 1] !== "delta");

export const answerOf = (events: ChatEvent[]) =>
  events
    .filter((event) => event.event === "delta")
    .map((event) => event.data.content)
    .join("");

/** `eventually` with the longer wait the agent's work after answering needs (log writes, then indexing). */
export const eventually = <T>(read: () => Promise<T>, check: (value: T) => boolean) => waitFor(read, check, 5_000);
