import { CloneType, type Static, type TSchema, Type as t } from "@sinclair/typebox";

/**
 * Whether every reply a route declares is checked against its schema as it is sent: on in the
 * tests (test/support sets GATEWAY_CHECK_REPLIES=1), off in production, where a route declares
 * its replies for the document and the types only and no reply pays a check.
 */
export const CHECK_REPLIES = process.env.GATEWAY_CHECK_REPLIES === "1";

const STATUS_TEXT: Record<number, string> = { 200: "OK.", 201: "Created.", 202: "Accepted: under way.", 204: "Done, no body." };

interface Summary {
  summary: string;
  description?: string;
}

/** A reply per status the document shows as its example, typed by the status's schema. */
type Examples<Schemas extends Record<number, TSchema>> = { [Status in keyof Schemas]?: Schemas[Status] extends TSchema ? Static<Schemas[Status]> : never };

/** The OpenAPI response objects of declared replies; errors refer to the shared error responses. */
function documented(schemas: Record<number, TSchema>, examples: Record<number, unknown>) {
  return Object.fromEntries(
    Object.entries(schemas).map(([status, schema]) => {
      if (Number(status) >= 400) return [status, { $ref: `#/components/responses/Error${status}` }];
      const example = examples[Number(status)];
      const media = example === undefined ? { schema } : { schema, example };
      return [status, { description: schema.description ?? STATUS_TEXT[Number(status)] ?? "Success.", content: { "application/json": media } }];
    }),
  );
}

/** Keys whose values are data, not schemas: an example is never closed. */
const DATA_KEYS = new Set(["default", "examples", "example", "const", "enum"]);

function closeEachObject(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(closeEachObject);
  if (node === null || typeof node !== "object") return;
  const schema = node as Record<string, unknown>;
  if (schema.type === "object" && schema.properties && !("additionalProperties" in schema)) schema.additionalProperties = false;
  for (const [key, value] of Object.entries(schema)) if (!DATA_KEYS.has(key)) closeEachObject(value);
}

/**
 * The schemas as the tests check replies against them: every object, at any depth, closed to the
 * properties it names (Elysia closes only the outermost one), so a field a route answers and its
 * schema does not describe fails the check instead of reaching clients undocumented. An object
 * that says `additionalProperties` keeps what it says; the document keeps them all open.
 */
function closed<Schemas extends Record<number, TSchema>>(schemas: Schemas): Schemas {
  return Object.fromEntries(
    Object.entries(schemas).map(([status, schema]) => {
      const copy = CloneType(schema);
      closeEachObject(copy);
      return [status, copy];
    }),
  ) as Schemas;
}

/**
 * A route's replies, declared once per status as TypeBox schemas: Elysia types the handler's
 * return from them, the OpenAPI document shows them, and with CHECK_REPLIES Elysia checks each
 * reply against them (a mismatch is a 500 `gateway_reply_contract_broken`).
 */
export function replies<const Schemas extends Record<number, TSchema>>(schemas: Schemas, { summary, description, examples = {} }: Summary & { examples?: Examples<Schemas> }) {
  const detail = { summary, ...(description ? { description } : {}), responses: documented(schemas, examples) };
  return (CHECK_REPLIES ? { response: closed(schemas), detail } : { detail }) as { response: Schemas; detail: typeof detail };
}

/** The `{message}` most writes answer beside the record. */
export const Message = t.String({ description: "What was done, in words." });
/** What a delete answers. */
export const Deleted = t.Object({ message: Message }, { title: "Deleted" });
/** An ISO 8601 timestamp as the management API answers it. */
export const Timestamp = t.String({ format: "date-time" });
/** The page fields of a paginated list. */
export const PageFields = {
  count: t.Integer({ description: "Rows in this page." }),
  total_count: t.Integer({ description: "Rows matching, all pages." }),
  limit: t.Integer({ description: "The page size asked for; 0 when none was." }),
  offset: t.Integer(),
};

/** A success a route sends as a Response of its own: a page, an event stream, a redirect, a protocol switch. */
export interface SentReply {
  description: string;
  /** The body's media type; none for a reply without a body. */
  mediaType?: string;
  /** What the body holds; a string when left out. */
  schema?: TSchema;
  /** Where a redirect sends the browser (the `Location` header). */
  location?: string;
  /** A body the document shows. */
  example?: unknown;
}

const sentResponse = ({ description, mediaType, schema, location, example }: SentReply) => ({
  description,
  ...(mediaType ? { content: { [mediaType]: { schema: schema ?? t.String(), ...(example === undefined ? {} : { example }) } } } : {}),
  ...(location ? { headers: { Location: { description: location, schema: t.String() } } } : {}),
});

/**
 * The replies of a route that answers with a Response it builds (pages, server-sent events,
 * redirects, a WebSocket's upgrade): in the document only, since no JSON value passes through
 * Elysia's check.
 */
export function sentReplies(responses: Record<number, SentReply>, { summary, description }: Summary) {
  const documentedResponses = Object.fromEntries(Object.entries(responses).map(([status, reply]) => [status, sentResponse(reply)]));
  return { detail: { summary, ...(description ? { description } : {}), responses: documentedResponses } };
}

/** An event stream's reply: each event named, its data a JSON value. */
export const eventStream = (description: string): SentReply => ({ description, mediaType: "text/event-stream" });
/** An HTML page for a person at a browser. */
export const htmlPage = (description: string): SentReply => ({ description, mediaType: "text/html" });
