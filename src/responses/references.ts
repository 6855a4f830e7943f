import { responseIdOfItem } from "./ids";
import type { StoredResponse } from "./store";

type Body = Record<string, unknown>;
type Item = { type?: unknown; id?: unknown };

const isReference = (item: unknown): item is Item & { id: string } => (item as Item | null)?.type === "item_reference" && typeof (item as Item).id === "string";

/** Whether a Responses body refers back to earlier items by id (the AI SDK's default with `store`). */
export const refersToItems = (body: Body) => Array.isArray(body.input) && body.input.some(isReference);

/**
 * The body with each `item_reference` to an output item of a response the gateway keeps for the
 * caller replaced by that item. References the gateway does not know stay as they are: OpenAI
 * resolves its own, and the bridge to other providers answers a 400 naming the id.
 */
export async function withReferencesResolved(body: Body, read: (responseId: string) => Promise<StoredResponse | undefined>): Promise<Body> {
  const input = body.input as unknown[];
  const responses = new Map<string, Promise<StoredResponse | undefined>>();
  const resolved = await Promise.all(
    input.map(async (item) => {
      const responseId = isReference(item) ? responseIdOfItem(item.id) : undefined;
      if (!responseId) return item;
      if (!responses.has(responseId)) responses.set(responseId, read(responseId));
      const output = (await responses.get(responseId))?.response.output;
      return (Array.isArray(output) ? output.find((candidate) => (candidate as Item | null)?.id === (item as Item).id) : undefined) ?? item;
    }),
  );
  return { ...body, input: resolved };
}
