import { expect } from "bun:test";
import type { TestGateway } from "../../support/gateway";

export interface SignInResult {
  /** The callback's answer. */
  response: Response;
  page: string;
  /** The gateway session token, when the sign-in succeeded. */
  session?: string;
  /** The query the provider's authorize endpoint received. */
  authorizeQuery: URLSearchParams;
}

const cookieOf = (response: Response, name: string) =>
  response.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith(`${name}=`))
    ?.split(";")[0]
    ?.slice(name.length + 1);

const decodeEntities = (html: string) => html.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

/** A browser's steps through the authorization-code flow, by hand: login, the provider, the callback. */
export async function signInOverHttp(gw: TestGateway, provider: string, returnTo?: string): Promise<SignInResult> {
  const login = await fetch(`${gw.url}/api/session/oidc/${provider}/login${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ""}`, { redirect: "manual" });
  expect(login.status).toBe(302);
  const pending = cookieOf(login, "gateway_oidc_login")!;
  const authorizeUrl = new URL(login.headers.get("location")!);
  const atProvider = await fetch(authorizeUrl, { redirect: "manual" });
  expect(atProvider.status).toBe(302);
  const response = await fetch(atProvider.headers.get("location")!, { redirect: "manual", headers: { cookie: `gateway_oidc_login=${pending}` } });
  return { response, page: decodeEntities(await response.clone().text()), session: cookieOf(response, "gateway_session") || undefined, authorizeQuery: authorizeUrl.searchParams };
}

/** The session cookie, as the dashboard's own page sends it (a write from another origin is refused). */
export const withSession = (session: string) => ({ headers: { cookie: `gateway_session=${session}`, "sec-fetch-site": "same-origin" } });
