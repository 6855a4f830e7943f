type Body = Record<string, unknown>;

/** One stored turn: the input items its request added and the response it got. */
export interface ResponseLink {
  input: unknown[];
  response: Record<string, unknown>;
}

/** The conversation a Responses call names: `"conv_..."` or `{ "id": "conv_..." }`. */
export function conversationIdOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  const id = (value as { id?: unknown } | null | undefined)?.id;
  return typeof id === "string" ? id : undefined;
}

/** A Responses request's `input` as items: a string is one user message. */
export function inputItemsOf(body: Body): unknown[] {
  const input = body.input;
  if (typeof input === "string") return [{ role: "user", content: input }];
  return Array.isArray(input) ? input : [];
}

const outputOf = (response: Record<string, unknown>): unknown[] => (Array.isArray(response.output) ? response.output : []);

/** Every input item the last turn's model answered: each earlier turn's input and output, then its own input. */
export function wholeInputOf(chain: readonly ResponseLink[]): unknown[] {
  return chain.flatMap((link, index) => (index === chain.length - 1 ? link.input : [...link.input, ...outputOf(link.response)]));
}

/** What a request continuing the chain's last response starts from: the whole conversation, that response's output included. */
export const continuationOf = (chain: readonly ResponseLink[]): unknown[] => chain.flatMap((link) => [...link.input, ...outputOf(link.response)]);

/**
 * The request continuing a conversation, written out whole: the conversation's items, then its
 * own. As on OpenAI's API, the previous response's instructions do not carry over.
 */
export function continuedBody(body: Body, conversation: readonly unknown[]): Body {
  const { previous_response_id: _, ...rest } = body;
  return { ...rest, input: [...conversation, ...inputItemsOf(body)] };
}
