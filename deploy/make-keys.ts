/**
 * The primary's JWT auth: an Ed25519 key pair, the public half for the libSQL server
 * (SQLD_AUTH_JWT_KEY_FILE) and a token signed by the private half for the gateways
 * (GATEWAY_DB_AUTH_TOKEN). `bun deploy/make-keys.ts` writes deploy/jwt-key.pem and appends the
 * token to deploy/.env; the private key is not kept (make a new pair to issue another token).
 */
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { exportSPKI, generateKeyPair, SignJWT } from "jose";

export async function makePrimaryKeys(): Promise<{ publicKeyPem: string; authToken: string }> {
  const { publicKey, privateKey } = await generateKeyPair("EdDSA", { extractable: true });
  return { publicKeyPem: await exportSPKI(publicKey), authToken: await new SignJWT({}).setProtectedHeader({ alg: "EdDSA" }).setIssuedAt().sign(privateKey) };
}

if (import.meta.main) {
  const { publicKeyPem, authToken } = await makePrimaryKeys();
  writeFileSync(join(import.meta.dir, "jwt-key.pem"), publicKeyPem);
  appendFileSync(join(import.meta.dir, ".env"), `GATEWAY_DB_AUTH_TOKEN=${authToken}\n`, { mode: 0o600 });
  console.log("wrote deploy/jwt-key.pem (for the primary) and GATEWAY_DB_AUTH_TOKEN to deploy/.env (for the gateways)");
}
