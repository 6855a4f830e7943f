import { Elysia } from "elysia";
import { notFound } from "../http/errors";
import { ASSET_PREFIX, type BuiltAsset, buildDashboard, type DashboardBuild, describeBuild } from "./build";

const IMMUTABLE = "public, max-age=31536000, immutable";

/**
 * Built on the first request for the dashboard and kept for the life of the process, so a
 * gateway that nobody opens in a browser never pays for the bundler.
 */
function lazyBuild(log: (line: string) => void) {
  let building: Promise<DashboardBuild> | undefined;
  return () => {
    building ??= buildDashboard().then(
      (build) => {
        log(describeBuild(build));
        return build;
      },
      (error) => {
        building = undefined;
        throw error;
      },
    );
    return building;
  };
}

const acceptsGzip = (request: Request) => /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");

function send(request: Request, body: Uint8Array, gzipped: Uint8Array, type: string, cacheControl: string): Response {
  const headers: Record<string, string> = { "content-type": type, "cache-control": cacheControl, vary: "accept-encoding", "x-content-type-options": "nosniff" };
  if (!acceptsGzip(request)) return new Response(body, { headers });
  return new Response(gzipped, { headers: { ...headers, "content-encoding": "gzip" } });
}

/**
 * The page runs only the bundle it names, from the gateway itself, talks only to the gateway, and
 * shows in no other site's frame: an injected script or a framing page gets nothing to run.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

function page(request: Request, build: DashboardBuild): Response {
  const body = new TextEncoder().encode(build.html);
  // The shell names the current hashes, so it is never cached; the assets it names are.
  const response = send(request, body, Bun.gzipSync(body), "text/html; charset=utf-8", "no-cache");
  response.headers.set("content-security-policy", CONTENT_SECURITY_POLICY);
  response.headers.set("x-frame-options", "DENY");
  return response;
}

const assetResponse = (request: Request, asset: BuiltAsset) => send(request, asset.body, asset.gzipped, asset.type, IMMUTABLE);

/**
 * The dashboard: the app at `/` and at every client route under `/ui/` (no API lives there),
 * its content-hashed files under /ui/assets/ with a year-long cache.
 */
export function dashboardRoutes(log: (line: string) => void = console.log) {
  const built = lazyBuild(log);
  return new Elysia({ name: "dashboard" })
    .get("/", async ({ request }) => page(request, await built()))
    .get(`${ASSET_PREFIX}:file`, async ({ request, params }) => {
      const asset = (await built()).assets.get(params.file);
      if (!asset) throw notFound(`no dashboard file '${params.file}'`, "caller_route_not_found");
      return assetResponse(request, asset);
    })
    .get("/ui", async ({ request }) => page(request, await built()))
    .get("/ui/*", async ({ request }) => page(request, await built()));
}
