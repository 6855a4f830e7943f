import { forbidden } from "./access-errors";
import { servedOverHttps } from "./cookies";

/** The first value of a header a proxy may have appended to. */
const firstOf = (value: string | null) => value?.split(",")[0]?.trim() || undefined;

/**
 * The origin a browser on the dashboard sends: the scheme the gateway is reached by (a proxy's
 * `X-Forwarded-Proto`, as for the session cookie's `Secure`) and the host it was asked for (a
 * proxy's `X-Forwarded-Host`, else `Host`). No form or other site can set either header.
 */
function ownOrigin(request: Request): string {
  const host = firstOf(request.headers.get("x-forwarded-host")) ?? request.headers.get("host") ?? new URL(request.url).host;
  return `${servedOverHttps(request) ? "https" : "http"}://${host}`.toLowerCase();
}

/**
 * A cookie goes with every request the browser makes to the gateway, including those a page on
 * another port of the same host sends (SameSite counts ports as one site). So a write the cookie
 * authenticates must come from the gateway's own pages: `Sec-Fetch-Site: same-origin`, or, where a
 * browser does not send that (plain http to a host other than localhost), an `Origin` equal to
 * the gateway's.
 */
export function assertSameOrigin(request: Request): void {
  const fetchSite = request.headers.get("sec-fetch-site");
  if (fetchSite !== null) {
    if (fetchSite === "same-origin") return;
  } else if (request.headers.get("origin")?.toLowerCase() === ownOrigin(request)) return;
  throw forbidden(
    "a write authenticated by the session cookie must come from the gateway's own pages (Origin or Sec-Fetch-Site: same-origin); other clients send the token in Authorization: Bearer",
    "caller_cross_origin_request",
  );
}
