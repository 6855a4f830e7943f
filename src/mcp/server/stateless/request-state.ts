import { timingSafeEqual } from "node:crypto";
import type { SecretBox } from "../../../crypto/secret-box";

/** What a `requestState` says: the held call it continues, which of its rounds, and until when. */
export interface StateClaims {
  call: string;
  round: number;
  expiresAt: number;
}

/** What the state is bound to without carrying it: the caller, the door and the request it was issued for. */
export interface StateBinding {
  caller: string | undefined;
  door: string;
  method: string;
  target: unknown;
  arguments: unknown;
}

export type Signer = Pick<SecretBox, "fingerprint">;

const isClaims = (value: unknown): value is StateClaims => {
  const claims = value as Partial<StateClaims> | null;
  return typeof claims === "object" && claims !== null && typeof claims.call === "string" && typeof claims.round === "number" && typeof claims.expiresAt === "number";
};

/** `<claims>.<tag>`: the claims in base64url JSON, the tag an HMAC (the gateway's key) over them and the binding. */
export function signState(signer: Signer, claims: StateClaims, binding: StateBinding): string {
  return `${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${signer.fingerprint({ claims, binding })}`;
}

/**
 * The claims of a state this gateway issued for this caller and request, or why not: a state
 * that was altered, or is presented by another caller or on another request, does not verify.
 */
export function readState(signer: Signer, state: string, binding: StateBinding, now: number): StateClaims | string {
  const [encoded, tag, extra] = state.split(".");
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(encoded ?? "", "base64url").toString("utf8"));
  } catch {
    claims = undefined;
  }
  const expected = isClaims(claims) ? Buffer.from(signer.fingerprint({ claims, binding })) : undefined;
  const presented = Buffer.from(tag ?? "");
  if (extra !== undefined || !isClaims(claims) || !expected || expected.length !== presented.length || !timingSafeEqual(expected, presented)) {
    return "requestState does not verify: it was altered, or it was issued to another caller or for another request";
  }
  if (claims.expiresAt <= now) return "requestState has expired: send the request again without it";
  return claims;
}
