import { createHash, randomBytes } from "node:crypto";

const random = () => randomBytes(32).toString("base64url");

export const randomState = random;
export const randomNonce = random;
/** RFC 7636: 43 characters of base64url. */
export const randomPKCECodeVerifier = random;
export const calculatePKCECodeChallenge = async (verifier: string) => createHash("sha256").update(verifier).digest("base64url");
