import { createHash } from "node:crypto";

const VIRTUAL_KEY_PREFIX = "sk-gw-";

/** The virtual key a request presents, in any of the places governance accepts one (spec 5). */
export function presentedVirtualKey(headers: Headers): string | undefined {
  const explicit = headers.get("x-gw-vk")?.trim();
  if (explicit) return explicit;
  const bearer = /^Bearer\s+(\S+)$/i.exec(headers.get("authorization") ?? "")?.[1];
  const candidates = [bearer, headers.get("x-api-key")?.trim(), headers.get("x-goog-api-key")?.trim()];
  return candidates.find((value) => value?.startsWith(VIRTUAL_KEY_PREFIX));
}

/** Who owns a job: a hash of the submitter's virtual key (never the key), or undefined without one. */
export function ownerOf(headers: Headers): string | undefined {
  const key = presentedVirtualKey(headers);
  return key === undefined ? undefined : createHash("sha256").update(key).digest("hex");
}
