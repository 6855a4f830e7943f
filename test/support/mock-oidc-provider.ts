/**
 * A mock OpenID Connect provider: discovery, JWKS, an authorize endpoint that signs the
 * configured user in at once (as a provider with a live session does), a token endpoint that
 * checks the client's secret, the redirect URI and the PKCE verifier, and ID tokens signed with
 * jose. Tests change what the next ID token says (`idTokenChanges`), break its signature, or
 * rotate the signing key.
 */
import { createHash } from "node:crypto";
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  nonce: string;
  claims: JWTPayload;
}

export interface MockOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The claims of whoever signs in next (sub, email, groups, ...). */
  user: JWTPayload;
  /** Changes to the next ID tokens' claims (aud, nonce, exp, iss...), applied last. */
  idTokenChanges: JWTPayload;
  /** Sign the next ID tokens, then change one character of the signature. */
  tamperSignature: boolean;
  /** Whether discovery names an end_session_endpoint. */
  endSession: boolean;
  /** A new signing key; the key set serves only it from now on. Answers its kid. */
  rotateKey(): Promise<string>;
  currentKid(): string;
  /** Every GET of the key set. */
  jwksFetches: number;
  /** Every authorize request's query. */
  authorizeRequests: URLSearchParams[];
  stop(): void;
}

async function newSigningKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const kid = crypto.randomUUID();
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" } };
}

const oauthError = (error: string, status = 400) => Response.json({ error, error_description: error }, { status });

export async function startMockOidcProvider(options: { clientId?: string; clientSecret?: string; user?: JWTPayload } = {}): Promise<MockOidcProvider> {
  let key = await newSigningKey();
  const codes = new Map<string, IssuedCode>();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (request) => {
      const url = new URL(request.url);
      if (url.pathname === "/.well-known/openid-configuration") {
        return Response.json({
          issuer: provider.issuer,
          authorization_endpoint: `${provider.issuer}/authorize`,
          token_endpoint: `${provider.issuer}/token`,
          jwks_uri: `${provider.issuer}/jwks`,
          ...(provider.endSession ? { end_session_endpoint: `${provider.issuer}/logout` } : {}),
          response_types_supported: ["code"],
          subject_types_supported: ["public"],
          id_token_signing_alg_values_supported: ["RS256"],
          code_challenge_methods_supported: ["S256"],
        });
      }
      if (url.pathname === "/jwks") {
        provider.jwksFetches++;
        return Response.json({ keys: [key.publicJwk] });
      }
      if (url.pathname === "/authorize") return authorize(url.searchParams);
      if (url.pathname === "/token" && request.method === "POST") return token(request);
      if (url.pathname === "/logout") return new Response("signed out at the provider");
      return new Response("not found", { status: 404 });
    },
  });

  function authorize(query: URLSearchParams): Response {
    provider.authorizeRequests.push(query);
    const redirectUri = query.get("redirect_uri");
    if (query.get("client_id") !== provider.clientId || !redirectUri) return new Response("unknown client", { status: 400 });
    if (query.get("response_type") !== "code" || query.get("code_challenge_method") !== "S256" || !query.get("code_challenge")) return new Response("PKCE required", { status: 400 });
    const code = crypto.randomUUID();
    codes.set(code, { clientId: provider.clientId, redirectUri, codeChallenge: query.get("code_challenge")!, nonce: query.get("nonce") ?? "", claims: { ...provider.user } });
    const back = new URL(redirectUri);
    back.searchParams.set("code", code);
    back.searchParams.set("state", query.get("state") ?? "");
    return new Response(null, { status: 302, headers: { location: back.toString() } });
  }

  async function token(request: Request): Promise<Response> {
    const form = new URLSearchParams(await request.text());
    const basic = /^Basic (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
    const [clientId, secret] = basic ? atob(basic).split(":").map(decodeURIComponent) : [form.get("client_id"), form.get("client_secret")];
    if (clientId !== provider.clientId || secret !== provider.clientSecret) return oauthError("invalid_client", 401);
    const issued = codes.get(form.get("code") ?? "");
    codes.delete(form.get("code") ?? "");
    if (!issued || issued.redirectUri !== form.get("redirect_uri")) return oauthError("invalid_grant");
    const challenge = createHash("sha256").update(form.get("code_verifier") ?? "").digest("base64url");
    if (challenge !== issued.codeChallenge) return oauthError("invalid_grant");
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: provider.issuer, aud: provider.clientId, iat: now, exp: now + 300, nonce: issued.nonce, ...issued.claims, ...provider.idTokenChanges };
    let idToken = await new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: key.kid }).sign(key.privateKey);
    if (provider.tamperSignature) idToken = idToken.slice(0, -2) + (idToken.at(-2) === "A" ? "B" : "A") + idToken.at(-1);
    return Response.json({ access_token: crypto.randomUUID(), token_type: "Bearer", expires_in: 300, id_token: idToken });
  }

  const provider: MockOidcProvider = {
    issuer: `http://127.0.0.1:${server.port}`,
    clientId: options.clientId ?? "gateway-client",
    clientSecret: options.clientSecret ?? "provider-client-secret",
    user: options.user ?? { sub: "user-1", email: "ada@example.com", name: "Ada", groups: ["gateway-admins"] },
    idTokenChanges: {},
    tamperSignature: false,
    endSession: true,
    async rotateKey() {
      key = await newSigningKey();
      return key.kid;
    },
    currentKid: () => key.kid,
    jwksFetches: 0,
    authorizeRequests: [],
    stop: () => server.stop(true),
  };
  return provider;
}
