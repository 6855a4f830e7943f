import { type AnyElysia, Elysia } from "elysia";
import { Type as t } from "@sinclair/typebox";
import { htmlPage, sentReplies } from "../http/replies";
import { REFERENCE_PAGE } from "./reference-page";

const OpenApiDocument = t.Object({ openapi: t.String(), info: t.Object({ title: t.String(), version: t.String() }, { additionalProperties: true }), paths: t.Record(t.String(), t.Unknown()) }, { additionalProperties: true, description: "An OpenAPI 3.1 document." });

/**
 * GET /api/openapi.json and /api/docs. The document is built on its first request, not at start
 * (it walks every route's schemas: ~100 ms a gateway start would otherwise pay), then kept; its
 * builder and @elysiajs/openapi are loaded then too, not held in every gateway's memory.
 */
export function openApiRoutes(app: () => AnyElysia) {
  let document: string | undefined;
  return new Elysia({ name: "openapi" })
    .get("/api/openapi.json", async () => {
      document ??= JSON.stringify((await import("./document")).buildOpenApiDocument(app()));
      return new Response(document, { headers: { "content-type": "application/json" } });
    }, sentReplies({ 200: { description: "This document.", mediaType: "application/json", schema: OpenApiDocument } }, { summary: "Get the OpenAPI document", description: "Every route the gateway serves, built from the routes' schemas." }))
    .get("/api/docs", () => new Response(REFERENCE_PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }), sentReplies({ 200: htmlPage("The reference page, reading /api/openapi.json.") }, { summary: "Read the API reference" }));
}
