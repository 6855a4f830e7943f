import type { CookieOptions } from "elysia";

export const SESSION_COOKIE = "gateway_session";
export const SETUP_COOKIE = "gateway_setup_session";

export const servedOverHttps = (request: Request) =>
  new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";

/** HttpOnly and SameSite=Strict: scripts cannot read it and other sites cannot send it. */
export const sessionCookie = (request: Request, value: string, expiresAt: Date): CookieOptions & { value: string } => ({
  value,
  path: "/",
  httpOnly: true,
  sameSite: "strict",
  secure: servedOverHttps(request),
  expires: expiresAt,
});

export const expiredCookie = (): CookieOptions & { value: string } => ({ value: "", path: "/", httpOnly: true, sameSite: "strict", maxAge: 0, expires: new Date(0) });
