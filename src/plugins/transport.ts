import { Elysia } from "elysia";
import { requestPath } from "../http/request-path";
import type { HttpHooks } from "./types";

/** The transport hooks see the inference surface only: not the management API, /health or /metrics. */
function isInferencePath(request: Request): boolean {
  const path = requestPath(request);
  return !(path === "/api" || path.startsWith("/api/") || path === "/health" || path === "/metrics");
}

async function requestThrough(hooks: readonly HttpHooks[], request: Request): Promise<Response | undefined> {
  for (const hook of hooks) {
    const answer = await hook.onHttpRequest?.(request);
    if (answer) return answer;
  }
}

async function responseThrough(hooks: readonly HttpHooks[], request: Request, original: Response): Promise<Response> {
  let response = original;
  for (let index = hooks.length - 1; index >= 0; index--) response = (await hooks[index]!.onHttpResponse?.(request, response)) ?? response;
  return response;
}

/**
 * Runs the plugins' HTTP transport hooks: `onHttpRequest` in plugin order before routing (the
 * first response given answers the request), `onHttpResponse` in reverse order on the route's
 * response, error answers included. Without such hooks (the usual case) a request pays nothing.
 */
export const pluginTransport = (hooks: () => readonly HttpHooks[]) =>
  new Elysia({ name: "plugin-transport" })
    .onRequest(({ request }) => {
      const active = hooks();
      if (active.length === 0 || !isInferencePath(request)) return;
      return requestThrough(active, request);
    })
    // mapResponse (not afterHandle) so error answers pass through the hooks too. Not declared
    // async, which Elysia would await on every request: a response the hooks see is mapped as
    // the promise of what they make of it.
    .mapResponse({ as: "global" }, ({ request, responseValue }) => {
      const active = hooks();
      if (active.length === 0 || !(responseValue instanceof Response) || !isInferencePath(request)) return;
      return responseThrough(active, request, responseValue);
    });
