import type { UpstreamCall } from "../../../upstream/adapter";

/** The signer loads with the first signed call: a gateway with no AWS provider never holds it in memory. */
const signerLibraries = () => Promise.all([import("@smithy/signature-v4"), import("@aws-crypto/sha256-js")]);

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/**
 * Signs a call with AWS Signature Version 4. Bedrock's APIs sign as service `bedrock`, whatever
 * their host name says. The path is signed as sent (already URL-encoded) and encoded once more
 * for the canonical request, as the AWS SDKs do for every service but S3, whose paths are not.
 */
export async function signCall(call: UpstreamCall, credentials: AwsCredentials, region: string, service: "bedrock" | "s3" = "bedrock"): Promise<UpstreamCall> {
  const url = new URL(call.url);
  const [{ SignatureV4 }, { Sha256 }] = await signerLibraries();
  const signer = new SignatureV4({ service, region, credentials, sha256: Sha256, uriEscapePath: service !== "s3" });
  if (call.body instanceof FormData || call.body instanceof Blob) throw new Error("only text and byte bodies can be signed");
  const signed = await signer.sign({
    method: call.method ?? "POST",
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
