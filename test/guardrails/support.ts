import OpenAI from "openai";
import type { TestGateway } from "../support/gateway";
import { created, createVirtualKey } from "../governance/support";

/** A virtual key of its own with one guardrail policy attached to it, and an OpenAI SDK client using the key. */
export async function keyWithGuardrail(gw: TestGateway, name: string, policy: Record<string, unknown>) {
  const key = await createVirtualKey(gw, { name });
  const { guardrail } = await created(gw, "/api/guardrails", { name, scope: "virtual_key", scope_id: key.id, ...policy });
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", defaultHeaders: { "x-gw-vk": key.value, "x-gw-metadata-case": name }, maxRetries: 0 });
  return { key, guardrail, client };
}

/** A card number that passes the Luhn check, and an email. */
export const CARD = "4111 1111 1111 1111";
export const EMAIL = "jane.doe@example.com";
export const OPENAI_KEY = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
