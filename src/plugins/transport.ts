import { Elysia } from "elysia";
import type { HttpHooks } from "./types";

/** The transport hooks see the inference surface only: not the management API, /health or /metrics. */
function isInferencePath(request: Request): boolean {
  const path = new URL(request.url).pathname;
  return !(path === "/api" || path.startsWith("/api/") || path === "/health" || path === "/metrics");
}

/**
 * Runs the plugins' HTTP transport hooks: `onHttpRequest` in plugin order before routing (the
 * first response given answers the request), `onHttpResponse` in reverse order on the route's
 * response, error answers included.
 */
export const pluginTransport = (hooks: () => readonly HttpHooks[]) =>
  new Elysia({ name: "plugin-transport" })
    .onRequest(async ({ request }) => {
      if (!isInferencePath(request)) return;
      for (const hook of hooks()) {
        const answer = await hook.onHttpRequest?.(request);
        if (answer) return answer;
      }
    })
    // mapResponse (not afterHandle) so error answers pass through the hooks too.
    .mapResponse({ as: "global" }, async ({ request, responseValue }) => {
      if (!(responseValue instanceof Response) || !isInferencePath(request)) return;
      let response = responseValue;
      for (const hook of hooks().toReversed()) response = (await hook.onHttpResponse?.(request, response)) ?? response;
      return response === responseValue ? undefined : response;
    });
