import type { GatewayConfig } from "../../src/config/schema";
import { startGateway, type TestGateway } from "../support/gateway";
import type { MockOpenAI } from "../support/mock-openai";

/** A clock the test moves by hand; budget and rate-limit windows are measured by it. */
export class ManualClock {
  constructor(public now = Date.UTC(2025, 0, 15, 12, 0, 0)) {}
  readonly read = () => this.now;
  advance(ms: number) {
    this.now += ms;
  }
}

/** startGateway, with the governance clock injected (its restart keeps the clock). */
export function startClockedGateway(config: GatewayConfig, clock: ManualClock): Promise<TestGateway> {
  return startGateway(config, { runtime: { clock: clock.read } });
}

/** An OpenAI provider on the mock with the given keys (`k1` when none are given). */
export function openAIProvider(upstream: MockOpenAI, keys: Array<{ id: string; value?: string; models?: string[] }> = [{ id: "k1" }]) {
  return { keys: keys.map((key) => ({ value: `sk-upstream-${key.id}`, ...key })), network_config: { base_url: upstream.baseUrl } };
}

/** Creates through the API and returns the body, failing loudly on anything but 201. */
export async function created<T = Record<string, any>>(gw: TestGateway, path: string, json: unknown): Promise<T> {
  const response = await gw.admin(path, { method: "POST", json });
  const body = await response.json();
  if (response.status !== 201) throw new Error(`POST ${path} answered ${response.status}: ${JSON.stringify(body)}`);
  return body as T;
}

export async function createVirtualKey(gw: TestGateway, json: Record<string, unknown>): Promise<{ id: string; value: string }> {
  const { virtual_key } = await created(gw, "/api/governance/virtual-keys", json);
  return { id: virtual_key.id, value: virtual_key.value };
}

/** A chat completion on /v1 with the virtual key in x-gw-vk. */
export function chat(gw: TestGateway, vk: string | undefined, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(vk ? { "x-gw-vk": vk } : {}), ...headers },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "one two three" }], ...body }),
  });
}

