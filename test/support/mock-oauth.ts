/**
 * A mock OAuth 2.0 token endpoint (RFC 6749 client credentials, RFC 7523 JWT bearer) that
 * checks what a real authorization server checks: the client's id and secret (HTTP Basic or form
 * fields), and for assertions the signature against the registered public key, the issuer, the
 * audience, and the presence of sub, iat, exp and jti. Every token request is recorded.
 */
import type { KeyObject } from "node:crypto";
import { decodeProtectedHeader, type JWTPayload, jwtVerify, type ProtectedHeaderParameters } from "jose";

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

export interface TokenRequest {
  grantType: string;
  /** How the client authenticated: HTTP Basic, form fields, or not at all. */
  clientAuth: "header" | "body" | "none";
  clientId?: string;
  form: URLSearchParams;
  assertion?: { header: ProtectedHeaderParameters; claims: JWTPayload };
}

export interface MockOAuth {
  /** The token endpoint. */
  tokenUrl: string;
  /** Client id to secret, for the client credentials grant. */
  clients: Map<string, string>;
  /** Assertion issuer to the public key its assertions must verify with. */
  signers: Map<string, KeyObject>;
  /** `expires_in` of the tokens issued. */
  tokenLifetimeSeconds: number;
  /** How long the endpoint takes to answer, so a burst of requests arrives while one exchange is under way. */
  answerDelayMs: number;
  requests: TokenRequest[];
  /** Every token issued, in order. */
  issued: string[];
  stop(): void;
}

const refuse = (status: number, error: string, description: string) => Response.json({ error, error_description: description }, { status });

function clientOf(request: Request, form: URLSearchParams): { auth: TokenRequest["clientAuth"]; id?: string; secret?: string } {
  const basic = request.headers.get("authorization")?.match(/^Basic (.+)$/)?.[1];
  if (basic) {
    const [id, secret] = Buffer.from(basic, "base64").toString("utf8").split(":").map(decodeURIComponent);
    return { auth: "header", id, secret };
  }
  if (form.has("client_id")) return { auth: "body", id: form.get("client_id")!, secret: form.get("client_secret") ?? undefined };
  return { auth: "none" };
}

async function verifyAssertion(mock: MockOAuth, assertion: string): Promise<TokenRequest["assertion"] | Response> {
  let header: ProtectedHeaderParameters;
  let issuer: string | undefined;
  try {
    header = decodeProtectedHeader(assertion);
    issuer = JSON.parse(Buffer.from(assertion.split(".")[1]!, "base64url").toString("utf8")).iss;
  } catch {
    return refuse(400, "invalid_grant", "the assertion is not a JWT");
  }
  const key = issuer ? mock.signers.get(issuer) : undefined;
  if (!key) return refuse(400, "invalid_grant", `unknown assertion issuer '${issuer}'`);
  try {
    const { payload } = await jwtVerify(assertion, key, { issuer, audience: mock.tokenUrl, requiredClaims: ["sub", "iat", "exp", "jti"] });
    return { header, claims: payload };
  } catch (error) {
    return refuse(400, "invalid_grant", `assertion rejected: ${(error as Error).message}`);
  }
}

async function issue(mock: MockOAuth, request: Request): Promise<Response> {
  const form = new URLSearchParams(await request.text());
  const grantType = form.get("grant_type") ?? "";
  const client = clientOf(request, form);
  const recorded: TokenRequest = { grantType, clientAuth: client.auth, clientId: client.id, form };
  mock.requests.push(recorded);
  if (mock.answerDelayMs > 0) await Bun.sleep(mock.answerDelayMs);
  if (grantType === "client_credentials") {
    if (!client.id || mock.clients.get(client.id) !== client.secret) return refuse(401, "invalid_client", "client authentication failed");
  } else if (grantType === JWT_BEARER) {
    const verified = await verifyAssertion(mock, form.get("assertion") ?? "");
    if (verified instanceof Response) return verified;
    recorded.assertion = verified;
  } else {
    return refuse(400, "unsupported_grant_type", `grant '${grantType}' is not supported`);
  }
  const token = `mock-access-token-${mock.issued.length + 1}`;
  mock.issued.push(token);
  return Response.json({ access_token: token, token_type: "Bearer", expires_in: mock.tokenLifetimeSeconds });
}

export function startMockOAuth(): MockOAuth {
  const mock: MockOAuth = {
    tokenUrl: "",
    clients: new Map(),
    signers: new Map(),
    tokenLifetimeSeconds: 3600,
    answerDelayMs: 0,
    requests: [],
    issued: [],
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (request) => (request.method === "POST" && new URL(request.url).pathname.endsWith("/token") ? issue(mock, request) : refuse(404, "not_found", "no such route")),
  });
  mock.tokenUrl = `http://127.0.0.1:${server.port}/oauth2/token`;
  return mock;
}
