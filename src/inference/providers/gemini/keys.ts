import type { UpstreamTarget } from "../../../upstream/adapter";

/** The key in `x-goog-api-key`; JSON bodies say so. */
export function keyHeaders(target: UpstreamTarget, json = true): Record<string, string> {
  const headers: Record<string, string> = { ...(json ? { "content-type": "application/json" } : {}), ...target.network.extra_headers };
  if (target.key?.secret) headers["x-goog-api-key"] = target.key.secret;
  return headers;
}

/** The versioned API root, e.g. `https://generativelanguage.googleapis.com/v1beta`. */
export function baseUrlOf(target: UpstreamTarget): string {
  if (!target.baseUrl) throw new Error("provider has no base_url");
  return target.baseUrl.replace(/\/+$/, "");
}
