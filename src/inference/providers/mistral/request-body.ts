import type { Operation } from "../../../upstream/operations";
import { withoutStreamOptions } from "../../formats/openai/stream-usage";

type Body = Record<string, unknown>;

const NINE_ALPHANUMERICS = /^[A-Za-z0-9]{9}$/;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/**
 * Mistral takes only tool call ids of nine letters and digits; a conversation begun elsewhere
 * carries OpenAI's `call_…` or Anthropic's `toolu_…`. Each becomes nine characters derived
 * from it, the same on the call and on its result, so the pair still matches.
 */
export function mistralCallId(id: string): string {
  if (NINE_ALPHANUMERICS.test(id)) return id;
  const digest = new Bun.CryptoHasher("sha256").update(id).digest();
  return Array.from(digest.subarray(0, 9), (byte) => ALPHABET[byte % ALPHABET.length]).join("");
}

function messageOf(message: Body): Body {
  const mapped = { ...message };
  if (typeof mapped.tool_call_id === "string") mapped.tool_call_id = mistralCallId(mapped.tool_call_id);
  if (Array.isArray(mapped.tool_calls)) mapped.tool_calls = mapped.tool_calls.map((call: Body) => (typeof call.id === "string" ? { ...call, id: mistralCallId(call.id) } : call));
  return mapped;
}

/** A chat as Mistral takes it: no `stream_options` (it answers 422, and reports usage unasked), and tool call ids it accepts. */
export function mistralBody(operation: Operation, body: Body): Body {
  const sent = withoutStreamOptions(body);
  if (operation !== "chat" || !Array.isArray(sent.messages)) return sent;
  return { ...sent, messages: sent.messages.map((message) => messageOf(message as Body)) };
}
