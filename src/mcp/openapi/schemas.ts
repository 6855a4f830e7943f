import { type Static, Type as t } from "@sinclair/typebox";
import { MAX_DOCUMENT_BYTES } from "./document";

const Names = (description: string) => t.Optional(t.Array(t.String({ minLength: 1 }), { description }));

/** `openapi` of an MCP client with connection_type `openapi`: the document, which operations become tools, and the API's credentials. */
export const OpenApiInput = t.Object(
  {
    document: t.Optional(t.String({ minLength: 1, maxLength: MAX_DOCUMENT_BYTES, description: "The OpenAPI 3.x document itself (JSON or YAML), instead of its URL in connection_string." })),
    base_url: t.Optional(t.String({ pattern: "^https?://", description: "Where the API is; default: the document's first servers entry." })),
    include_tags: Names("Operations with any of these tags become tools (with include_operations; both empty: every operation)."),
    include_operations: Names("Operations by operationId (or tool name) that become tools."),
    exclude_tags: Names("Operations with any of these tags never become tools."),
    exclude_operations: Names("Operations by operationId (or tool name) that never become tools."),
    credentials: t.Optional(
      t.Record(t.String({ minLength: 1 }), t.String(), {
        description: "Values by security scheme name of the document: a bearer token, an API key, `user:password` for basic, an OAuth access token. Encrypted at rest, redacted in responses; `env.NAME` reads the gateway's environment.",
      }),
    ),
  },
  { description: "connection_type openapi: the API whose operations are the tools." },
);
export type OpenApiInput = Static<typeof OpenApiInput>;

/** What the management API shows of an OpenAPI client: the document's text stays out of lists. */
export const OpenApiView = t.Object({
  document_inline: t.Boolean({ description: "The document was given inline (else it is fetched from connection_string at each connection)." }),
  base_url: t.Union([t.String(), t.Null()]),
  include_tags: t.Array(t.String()),
  include_operations: t.Array(t.String()),
  exclude_tags: t.Array(t.String()),
  exclude_operations: t.Array(t.String()),
  credentials: t.Record(t.String(), t.String(), { description: "Values redacted." }),
});
