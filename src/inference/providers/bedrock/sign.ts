import { Sha256 } from "@aws-crypto/sha256-js";
import { SignatureV4 } from "@smithy/signature-v4";
import type { UpstreamCall } from "../types";

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Bedrock's runtime API signs as service `bedrock`, whatever its host name says. */
const SIGNING_SERVICE = "bedrock";

/**
 * Signs a call with AWS Signature Version 4. The path is signed as sent (already URL-encoded),
 * and encoded once more for the canonical request, as the AWS SDKs do for every service but S3.
 */
export async function signCall(call: UpstreamCall, credentials: AwsCredentials, region: string): Promise<UpstreamCall> {
  const url = new URL(call.url);
  const signer = new SignatureV4({ service: SIGNING_SERVICE, region, credentials, sha256: Sha256 });
  const signed = await signer.sign({
    method: "POST",
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: { ...call.headers, host: url.host },
    body: call.body,
  });
  // fetch derives the same Host from the URL; sending it twice would be refused.
  const { host: _host, ...headers } = signed.headers;
  return { ...call, headers };
}
