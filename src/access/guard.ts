import { Elysia } from "elysia";
import { type EnvReferences, envReferencesIn } from "../config/env-reference";
import { BodyDeadlines } from "../http/body-deadlines";
import { GatewayError } from "../http/errors";
import { formBodyRefused, formEncodingOf } from "../http/form-bodies";
import { nestedDeeperThan } from "../http/json-depth";
import { tooDeep } from "../http/request-bodies";
import { requestPath } from "../http/request-path";
import { type Edition, enterpriseOnly } from "./access-errors";
import type { AuditRecorder } from "./audit/recorder";
import type { Authenticator } from "./authenticate";
import { authorize } from "./authorize";
import { ANONYMOUS } from "./principal";
import { accessOf, type RequestAccess, rememberAccess } from "./request-context";
import { routeAccessFor } from "./route-access";
import { assertSameOrigin } from "./same-origin";
import type { Serving } from "../http/serving";

export interface GuardDeps {
  edition: Edition;
  authenticator: Authenticator;
  /** Enterprise only: OSS keeps no audit log. */
  recorder?: AuditRecorder;
  envReferences: EnvReferences;
  /** server.max_json_depth: a body is checked against it before anything here walks it. */
  maxJsonDepth: number;
  /** server.body_timeout_seconds, in ms: how long the body read here may take to arrive. */
  bodyTimeoutMs: number;
  /** Where the caller's address is read. */
  serving: Serving;
}

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The management API; inference (/v1, provider and framework mounts) is governed elsewhere. */
const isManagementPath = (path: string) => path === "/api" || path.startsWith("/api/");

/** Sets the caller on `access` as soon as it is known, so a refusal is audited with its author. */
async function admit(request: Request, access: RequestAccess, { edition, authenticator }: GuardDeps): Promise<void> {
  // No management route takes a form: one is what a page on another site posts, with the browser's cookie.
  const formEncoding = WRITE_METHODS.has(request.method) ? formEncodingOf(request.headers) : undefined;
  if (formEncoding) throw formBodyRefused(formEncoding);
  const rule = access.route?.rule;
  if (rule?.enterprise && edition === "oss") throw enterpriseOnly(rule.enterprise);
  if (rule?.access.kind === "public" || rule?.access.kind === "own-credential") return;
  access.principal = await authenticator.authenticate(request);
  authorize(access.principal, rule, edition);
  if (access.principal.byCookie && WRITE_METHODS.has(request.method)) assertSameOrigin(request);
}

/**
 * The JSON body of a write, read from a copy so the route still gets it; undefined when it is not
 * JSON. One nested deeper than the limit is refused before it is parsed: every walk over it
 * (the search for env. references below) would recurse once per level.
 */
async function writtenJson(request: Request, maxDepth: number, deadlines: BodyDeadlines): Promise<unknown> {
  if (!WRITE_METHODS.has(request.method) || !request.headers.get("content-type")?.includes("json")) return undefined;
  const text = await deadlines.within(request.clone().text());
  if (nestedDeeperThan(text, maxDepth)) throw tooDeep(maxDepth);
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * An `env.NAME` value hands the gateway's environment to whatever receives it (a webhook receiver,
 * an MCP server, a provider): only the local admin may write one, and only to a variable the
 * configuration file allows. Checked here, once for every management route.
 */
async function checkEnvReferences(request: Request, access: RequestAccess, { envReferences: references, maxJsonDepth }: GuardDeps, deadlines: BodyDeadlines): Promise<void> {
  if (access.principal.type === "anonymous") return;
  for (const { reference, param } of envReferencesIn(await writtenJson(request, maxJsonDepth, deadlines))) {
    if (!access.principal.localAdmin) {
      throw new GatewayError({ status: 403, errorType: "policy_admin_authentication_required", message: `only the admin may write env. references (${param} is '${reference}')`, param });
    }
    references.checkWritten(reference, param);
  }
}

function statusOf(responseValue: unknown, status: unknown): number {
  if (responseValue instanceof Response) return responseValue.status;
  return typeof status === "number" ? status : 200;
}

/** Authenticates and authorizes a management request; a refused write is audited before the refusal is thrown. */
async function guardManagement(request: Request, path: string, deps: GuardDeps, deadlines: BodyDeadlines): Promise<void> {
  const access: RequestAccess = { principal: ANONYMOUS, route: routeAccessFor(request.method, path), ip: deps.serving.server?.requestIP(request)?.address ?? "", audit: {} };
  rememberAccess(request, access);
  try {
    await admit(request, access, deps);
    await checkEnvReferences(request, access, deps, deadlines);
  } catch (error) {
    if (deps.recorder && WRITE_METHODS.has(request.method) && error instanceof GatewayError) {
      await deps.recorder.record(request, access, { status: error.status, denied: true });
    }
    throw error;
  }
}

/**
 * Runs before routing on every /api request: authenticates, checks the route table, and
 * records management writes (allowed or refused) in the audit log. Without an audit log (OSS)
 * no hook runs after the route: every request, inference included, would pay for an async one.
 */
export function accessGuard(deps: GuardDeps) {
  const deadlines = new BodyDeadlines(deps.bodyTimeoutMs);
  const guard = new Elysia({ name: "access-guard" }).onRequest(({ request }) => {
    const path = requestPath(request);
    if (!isManagementPath(path)) return;
    return guardManagement(request, path, deps, deadlines);
  });
  const { recorder } = deps;
  if (!recorder) return guard;
  // Elysia awaits a mapResponse hook only when it is declared async.
  return guard.mapResponse({ as: "global" }, async ({ request, set, responseValue, body }) => {
    if (!WRITE_METHODS.has(request.method)) return;
    const access = accessOf(request);
    if (access) await recorder.record(request, access, { status: statusOf(responseValue, set.status), denied: false, body, responseValue });
  });
}
