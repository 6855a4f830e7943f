import { createHmac, randomBytes } from "node:crypto";

const SECRET_PREFIX = "whsec_";

/** A Standard Webhooks signing secret: `whsec_` and 24 random bytes in base64. */
export const generateSigningSecret = () => `${SECRET_PREFIX}${randomBytes(24).toString("base64")}`;

/** A message id receivers deduplicate on; kept across retries and redeliveries. */
export const generateWebhookId = () => `msg_${randomBytes(16).toString("base64url")}`;

/** Standard Webhooks: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` under the decoded secret. */
export function signDelivery(secret: string, webhookId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), "base64");
  const mac = createHmac("sha256", key).update(`${webhookId}.${timestampSeconds}.${body}`).digest("base64");
  return `v1,${mac}`;
}
