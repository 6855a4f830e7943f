import { type Static, t } from "elysia";
import { badRequest } from "../http/errors";

type Item = Record<string, unknown>;

export const InputItemsQuery = t.Object(
  {
    order: t.Optional(t.Union([t.Literal("asc"), t.Literal("desc")])),
    limit: t.Optional(t.Numeric({ minimum: 1, maximum: 100, multipleOf: 1 })),
    after: t.Optional(t.String({ minLength: 1 })),
  },
  { additionalProperties: true },
);

type InputItemsQuery = Static<typeof InputItemsQuery>;

/** A message's content as parts: input text, or output text for the assistant's. */
export function partsOf(role: unknown, content: unknown): unknown {
  if (typeof content !== "string") return content;
  return [{ type: role === "assistant" ? "output_text" : "input_text", text: content }];
}

/**
 * A stored input item as OpenAI lists it: typed, with its content as parts and an id. Items sent
 * without one get `<kind>_<response>_<position>`, the same on every read.
 */
function listedItem(item: unknown, position: number, responseId: string): Item {
  const raw = (item ?? {}) as Item;
  const type = typeof raw.type === "string" ? raw.type : "message";
  const listed: Item = type === "message" ? { ...raw, type, content: partsOf(raw.role, raw.content) } : { ...raw, type };
  listed.id ??= `${type === "message" ? "msg" : "item"}_${responseId.replace(/^resp_/, "")}_${position}`;
  return listed;
}

/** One page of a stored response's input items, newest first unless `order` is `asc`, as `GET /v1/responses/{id}/input_items` answers. */
export function inputItemsPage(input: readonly unknown[], responseId: string, query: InputItemsQuery) {
  const items = input.map((item, position) => listedItem(item, position, responseId));
  if (query.order !== "asc") items.reverse();
  let start = 0;
  if (query.after !== undefined) {
    const index = items.findIndex((item) => item.id === query.after);
    if (index < 0) throw badRequest(`after '${query.after}' is not an input item of this response`, "after");
    start = index + 1;
  }
  const data = items.slice(start, start + (query.limit ?? 20));
  return { object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: start + data.length < items.length };
}
