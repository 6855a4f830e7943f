import type { StoredResponseRow } from "../db/schema";

type Body = Record<string, unknown>;

/** A Responses request's `input` as items: a string is one user message. */
export function inputItemsOf(body: Body): unknown[] {
  const input = body.input;
  if (typeof input === "string") return [{ role: "user", content: input }];
  return Array.isArray(input) ? input : [];
}

/**
 * The request continuing `previous`, written out whole: the earlier input and output items, then
 * its own. As on OpenAI's API, the previous response's instructions do not carry over.
 */
export function continuedBody(body: Body, previous: StoredResponseRow): Body {
  const { previous_response_id: _, ...rest } = body;
  const output = Array.isArray(previous.response.output) ? previous.response.output : [];
  return { ...rest, input: [...previous.input, ...output, ...inputItemsOf(body)] };
}
