/**
 * Reply schemas that carry a `title` (`VirtualKey`, `LogRow`) become named components: each is
 * written once under `components.schemas` and referred to by `$ref` wherever it is used, so a
 * client generated from the document gets types with those names instead of anonymous shapes.
 */

type Json = unknown;

/** A copy of `node` with every titled object schema in it replaced by a reference to its component. */
function withReferences(node: Json, named: Map<string, { schema: Json; text: string }>): Json {
  if (Array.isArray(node)) return node.map((item) => withReferences(item, named));
  if (node === null || typeof node !== "object") return node;
  const copy = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, key === "examples" || key === "example" || key === "default" ? value : withReferences(value, named)]));
  const title = copy.title;
  if (typeof title !== "string" || !/^[A-Za-z][A-Za-z0-9]*$/.test(title)) return copy;
  const text = JSON.stringify(copy);
  const existing = named.get(title);
  // Two different schemas under one title keep the second inline: the reply-contract test names it.
  if (existing && existing.text !== text) return copy;
  named.set(title, { schema: copy, text });
  return { $ref: `#/components/schemas/${title}` };
}

type Media = { schema?: Json };
type Response = { content?: Record<string, Media> };

/**
 * Moves the titled schemas of every operation's replies into components (the operations get
 * copies of their responses that refer to them; the routes' own schemas are left as they are)
 * and answers the components.
 */
export function nameReplySchemas(operations: Iterable<{ responses?: Record<string, unknown> }>): Record<string, Json> {
  const named = new Map<string, { schema: Json; text: string }>();
  const referring = (media: Media): Media => (media.schema === undefined ? media : { ...media, schema: withReferences(media.schema, named) });
  for (const operation of operations) {
    const responses = Object.entries((operation.responses ?? {}) as Record<string, Response>).map(([status, response]) => [
      status,
      response.content ? { ...response, content: Object.fromEntries(Object.entries(response.content).map(([type, media]) => [type, referring(media)])) } : response,
    ]);
    operation.responses = Object.fromEntries(responses);
  }
  return Object.fromEntries([...named].sort(([a], [b]) => a.localeCompare(b)).map(([title, { schema }]) => [title, schema]));
}
