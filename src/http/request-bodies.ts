import { Elysia } from "elysia";
import { BodyDeadlines } from "./body-deadlines";
import { GatewayError } from "./errors";
import { nestedDeeperThan } from "./json-depth";

/** Far deeper than any real request (an agent's tool schemas nest a dozen levels), far shallower than what costs anything to parse, validate or store. */
export const DEFAULT_MAX_JSON_DEPTH = 128;

/** Long enough for a large upload on a slow line, short enough that a trickling client cannot hold a connection for long. */
export const DEFAULT_BODY_TIMEOUT_SECONDS = 60;

/** Content-Encoding values a body may be sent in, and the decompression each one is. */
type Decompression = ConstructorParameters<typeof DecompressionStream>[0];
const DECOMPRESSIONS: Record<string, Decompression> = { gzip: "gzip", "x-gzip": "gzip", deflate: "deflate", br: "brotli", zstd: "zstd" };

export interface RequestBodiesOptions {
  /** Config server.max_json_depth. */
  maxJsonDepth: number;
  /** The most bytes a compressed body may decode to (server.max_request_body_mb). */
  maxBodyBytes: number;
  /** Runs before a body is read and parsed here: what it refuses (a request without a virtual key) costs no read and no parse. Routes that read their body themselves check their callers themselves. */
  beforeBody?: (request: Request) => void;
  /** Config server.body_timeout_seconds, in ms: the longest a body read here may take to arrive in full. */
  bodyTimeoutMs: number;
}

/** What an Elysia route lists as its parse hooks; the string ones name a parser ("json", "none", ...). */
interface RouteWithParsers {
  method: string;
  path: string;
  hooks: { parse?: unknown };
}

/** The 400 of a body nested deeper than `limit`, naming the body. */
export const tooDeep = (limit: number) =>
  new GatewayError({ status: 400, errorType: "caller_json_too_deep", message: `the request body nests JSON objects and arrays deeper than this gateway's limit of ${limit} levels (server.max_json_depth)`, param: "body" });

const unsupportedEncoding = (encoding: string) =>
  new GatewayError({ status: 415, errorType: "caller_unsupported_content_encoding", message: `this route does not take a body in Content-Encoding '${encoding}': send it uncompressed, or a JSON or text body in gzip, deflate, br or zstd`, param: "content-encoding" });

/** Elysia's names for one parser, as a route may declare it. */
const PARSER_ALIASES: Record<string, string> = { "application/json": "json", "text/plain": "text", "application/octet-stream": "arrayBuffer" };

const isJsonType = (contentType: string) => contentType === "application/json" || contentType.endsWith("+json");

/** The body decompressed, refused once it passes `maxBytes`: a few kilobytes of gzip can decode to gigabytes. */
async function decompressed(request: Request, encoding: string, maxBytes: number): Promise<Uint8Array> {
  const format = DECOMPRESSIONS[encoding];
  if (!format) throw unsupportedEncoding(encoding);
  if (!request.body) return new Uint8Array();
  const reader = request.body.pipeThrough(new DecompressionStream(format)).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      size += read.value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw new GatewayError({ status: 413, errorType: "caller_request_too_large", message: `the request body decompresses to more than this gateway's limit of ${maxBytes / 2 ** 20} MiB (server.max_request_body_mb)`, param: "body" });
      }
      chunks.push(read.value);
    }
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw new GatewayError({ status: 400, errorType: "caller_invalid_content_encoding", message: `the request body is not valid ${encoding}`, param: "content-encoding" });
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/**
 * How every request body is read, in one parse hook ahead of each route's own: `beforeBody`
 * first, then a Content-Encoding decoded within the body limit, then a JSON body checked for
 * its depth before it is parsed (JSON.parse itself takes 100,000 levels, but each later walk over
 * the value, a schema check or SQLite's JSON functions, pays for them or fails on them).
 *
 * Routes that read their body themselves (`parse: "none"`: async submissions, MCP, A2A, uploads)
 * are left their body, unread: a JSON one is checked for its depth on a copy. Elysia gives a parse
 * hook no way to know a route's own parser, so `learnRoutes` tells it, once the app is built.
 */
export function requestBodies({ maxJsonDepth, maxBodyBytes, beforeBody, bodyTimeoutMs }: RequestBodiesOptions) {
  /** By route, then method (`ALL` for a route of every method): looked up without building a key per request. */
  const declaredParsers = new Map<string, Map<string, string>>();
  const deadlines = new BodyDeadlines(bodyTimeoutMs);

  const parseJson = (text: string) => {
    if (nestedDeeperThan(text, maxJsonDepth)) throw tooDeep(maxJsonDepth);
    return JSON.parse(text) as unknown;
  };

  /** A route's own reading of its body, checked for its depth on a copy. Not undefined: Elysia would read the body with a parser of its own. */
  const leftToRoute = async (request: Request, contentType: string): Promise<null> => {
    if (isJsonType(contentType) && nestedDeeperThan(await deadlines.within(request.clone().text()), maxJsonDepth)) throw tooDeep(maxJsonDepth);
    return null;
  };

  const decoded = async (request: Request, contentType: string, declared: string | undefined, json: boolean, encoding: string) => {
    const bytes = await deadlines.within(decompressed(request, encoding, maxBodyBytes));
    if (json) return parseJson(new TextDecoder().decode(bytes));
    if (declared === "text" || (declared === undefined && contentType === "text/plain")) return new TextDecoder().decode(bytes);
    if (declared === "arrayBuffer" || (declared === undefined && contentType === "application/octet-stream")) return bytes.buffer;
    throw unsupportedEncoding(encoding);
  };

  // Not an async function: a plain JSON body (every inference call) is one read and a parse, with no step of the hook's own.
  const plugin = new Elysia({ name: "request-bodies" }).onParse({ as: "global" }, ({ request, contentType, route }) => {
    const parsers = declaredParsers.get(route);
    const declared = parsers && (parsers.get(request.method) ?? parsers.get("ALL"));
    const encoding = request.headers.get("content-encoding")?.trim().toLowerCase();
    const encoded = encoding !== undefined && encoding !== "" && encoding !== "identity";
    if (declared === "none") {
      if (encoded) throw unsupportedEncoding(encoding);
      return leftToRoute(request, contentType);
    }
    beforeBody?.(request);
    const json = declared === "json" || (declared === undefined && isJsonType(contentType));
    if (encoded) return decoded(request, contentType, declared, json, encoding);
    return json ? deadlines.within(request.text()).then(parseJson) : undefined;
  });

  return {
    plugin,
    /** Tells the hook which parser each route declared: call with the app's routes once they are all mounted. */
    learnRoutes(routes: readonly RouteWithParsers[]) {
      for (const { method, path, hooks } of routes) {
        const parsers = Array.isArray(hooks.parse) ? (hooks.parse as Array<{ fn?: unknown }>) : [];
        const named = parsers.map(({ fn }) => fn).findLast((fn) => typeof fn === "string");
        if (typeof named !== "string") continue;
        const byMethod = declaredParsers.get(path) ?? new Map<string, string>();
        declaredParsers.set(path, byMethod.set(method, PARSER_ALIASES[named] ?? named));
      }
    },
  };
}
