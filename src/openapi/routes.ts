import { type AnyElysia, Elysia } from "elysia";
import { REFERENCE_PAGE } from "./reference-page";

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
    })
    .get("/api/docs", () => new Response(REFERENCE_PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }));
}
