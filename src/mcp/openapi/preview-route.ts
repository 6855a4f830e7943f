import { Type as t } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { principalOf } from "../../access";
import { badRequest } from "../../http/errors";
import { replies } from "../../http/replies";
import { checkWrittenAddresses, type OutboundReach } from "../../outbound/reach";
import { MAX_DOCUMENT_BYTES } from "./document";
import { settingsFromInput } from "./settings";
import { loadAsWritten } from "./write-check";

const PreviewBody = t.Object({
  connection_string: t.Optional(t.String({ pattern: "^https?://", description: "The document's URL." })),
  document: t.Optional(t.String({ minLength: 1, maxLength: MAX_DOCUMENT_BYTES, description: "The document itself, JSON or YAML." })),
});

const OperationList = t.Object(
  {
    operations: t.Array(
      t.Object({
        tool_name: t.String(),
        operation_id: t.Union([t.String(), t.Null()]),
        method: t.String(),
        path: t.String(),
        summary: t.Union([t.String(), t.Null()]),
        tags: t.Array(t.String()),
      }),
    ),
  },
  { title: "OpenApiOperationList" },
);

/** POST /api/mcp/openapi/operations: every operation of a document, as the tools it would be, to pick from before the client is written. */
export const openApiPreviewRoute = (outbound: OutboundReach) =>
  new Elysia({ name: "mcp-openapi-preview", prefix: "/api/mcp" }).post(
    "/openapi/operations",
    async ({ body, request }) => {
      if (body.document !== undefined && body.connection_string !== undefined) throw badRequest("give the document or its URL (connection_string), not both", "document");
      const writer = principalOf(request);
      await checkWrittenAddresses(body, writer, outbound);
      const api = await loadAsWritten(settingsFromInput({ document: body.document }, body.connection_string), body.connection_string, writer, outbound, "document");
      const operations = api.operations.map((operation) => ({ tool_name: operation.toolName, operation_id: operation.operationId ?? null, method: operation.method.toUpperCase(), path: operation.path, summary: operation.summary ?? null, tags: operation.tags }));
      return { operations };
    },
    {
      body: PreviewBody,
      ...replies({ 200: OperationList }, { summary: "List an OpenAPI document's operations", description: "Reads the document (inline, or fetched from its URL under the caller's address policy) and answers its operations as the tools an openapi MCP client would offer; a fault is a 400 naming the field." }),
    },
  );
