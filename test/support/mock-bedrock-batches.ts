/**
 * A mock of Bedrock batch inference as the gateway meets it: S3 (path-style objects, PUT, HEAD,
 * GET, DELETE, ListObjectsV2 in XML) and Bedrock's control plane (CreateModelInvocationJob,
 * GetModelInvocationJob, ListModelInvocationJobs, StopModelInvocationJob). Like AWS it checks
 * every SigV4 signature, recomputed from the known credentials, for the service the path belongs
 * to (`s3` or `bedrock`). Jobs stay Submitted until the test completes them; completion writes
 * `{output}{job id}/{input name}.out` with one Claude answer per record.
 */
import { Sha256 } from "@aws-crypto/sha256-js";
import { SignatureV4 } from "@smithy/signature-v4";

export interface BatchAwsAuth {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

interface Job {
  jobArn: string;
  jobName: string;
  roleArn: string;
  modelId: string;
  status: string;
  submitTime: string;
  endTime?: string;
  inputDataConfig: { s3InputDataConfig: { s3Uri: string } };
  outputDataConfig: { s3OutputDataConfig: { s3Uri: string } };
}

export interface MockBedrockBatches {
  url: string;
  objects: Map<string, { bytes: Uint8Array; lastModified: Date }>;
  jobs: Map<string, Job>;
  requests: Array<{ method: string; path: string; service: "s3" | "bedrock"; json?: Record<string, unknown> }>;
  complete(jobArn: string): void;
  stop(): void;
}

const CONTROL_PLANE = /^\/(model-invocation-jobs?|foundation-models)(\/|$)/;
const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=[0-9a-f]{64}$/;
const awsError = (status: number, code: string, message: string) => Response.json({ __type: code, message }, { status });
const xmlError = (status: number, code: string) => new Response(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code></Error>`, { status, headers: { "content-type": "application/xml" } });

async function verify(request: Request, url: URL, body: Uint8Array, service: "s3" | "bedrock", auth: BatchAwsAuth): Promise<string | undefined> {
  const header = request.headers.get("authorization") ?? "";
  const match = AUTHORIZATION.exec(header);
  if (!match) return "missing or malformed SigV4 authorization";
  const [, accessKey, region, signedService, signedHeaders] = match;
  if (accessKey !== auth.accessKeyId || region !== auth.region || signedService !== service) return `credential scope ${region}/${signedService} is wrong for ${service}`;
  if (service === "s3" && !signedHeaders!.split(";").includes("x-amz-content-sha256")) return "S3 needs x-amz-content-sha256 signed";
  const headers = Object.fromEntries(signedHeaders!.split(";").map((name) => [name, request.headers.get(name) ?? ""]));
  const amzDate = headers["x-amz-date"]!.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, "$1-$2-$3T$4:$5:$6Z");
  const signer = new SignatureV4({ service, region: auth.region, credentials: auth, sha256: Sha256, uriEscapePath: service !== "s3" });
  const expected = await signer.sign(
    { method: request.method, protocol: url.protocol, hostname: url.hostname, port: Number(url.port), path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body: body.byteLength ? body : undefined },
    { signingDate: new Date(amzDate) },
  );
  return expected.headers.authorization === header ? undefined : "the request signature we calculated does not match the signature you provided";
}

function s3(mock: MockBedrockBatches, method: string, url: URL, body: Uint8Array): Response {
  const path = decodeURIComponent(url.pathname.slice(1));
  const [bucket, ...rest] = path.split("/");
  const key = rest.join("/");
  if (method === "GET" && key === "") {
    const prefix = url.searchParams.get("prefix") ?? "";
    const contents = [...mock.objects].filter(([name]) => name.startsWith(`${bucket}/${prefix}`)).map(([name, object]) => `<Contents><Key>${name.slice(bucket!.length + 1)}</Key><LastModified>${object.lastModified.toISOString()}</LastModified><Size>${object.bytes.byteLength}</Size></Contents>`);
    return new Response(`<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>${bucket}</Name>${contents.join("")}</ListBucketResult>`, { headers: { "content-type": "application/xml" } });
  }
  if (method === "PUT") {
    mock.objects.set(path, { bytes: body, lastModified: new Date() });
    return new Response(null, { headers: { etag: '"mock"' } });
  }
  const object = mock.objects.get(path);
  if (!object) return xmlError(404, "NoSuchKey");
  if (method === "DELETE") {
    mock.objects.delete(path);
    return new Response(null, { status: 204 });
  }
  const headers = { "content-type": "application/octet-stream", "content-length": String(object.bytes.byteLength), "last-modified": object.lastModified.toUTCString() };
  return new Response(method === "HEAD" ? null : object.bytes, { headers });
}

function controlPlane(mock: MockBedrockBatches, method: string, url: URL, json: Record<string, unknown> | undefined): Response {
  const [, collection, encodedArn, action] = url.pathname.split("/");
  if (collection === "foundation-models") return Response.json({ modelSummaries: [{ modelId: "anthropic.claude-3-haiku-20240307-v1:0" }] });
  if (collection === "model-invocation-jobs") return Response.json({ invocationJobSummaries: [...mock.jobs.values()] });
  if (!encodedArn && method === "POST") {
    const body = json as unknown as Omit<Job, "jobArn" | "status" | "submitTime">;
    if (!body.roleArn || !body.modelId || !body.inputDataConfig?.s3InputDataConfig?.s3Uri) return awsError(400, "ValidationException", "roleArn, modelId and inputDataConfig are required");
    const jobArn = `arn:aws:bedrock:us-east-1:123456789012:model-invocation-job/${crypto.randomUUID().slice(0, 12)}`;
    mock.jobs.set(jobArn, { ...body, jobArn, status: "Submitted", submitTime: new Date().toISOString() });
    return Response.json({ jobArn });
  }
  const job = mock.jobs.get(decodeURIComponent(encodedArn ?? ""));
  if (!job) return awsError(404, "ResourceNotFoundException", "no such job");
  if (action === "stop") {
    job.status = "Stopping";
    return Response.json({});
  }
  return Response.json(job);
}

export function startMockBedrockBatches(auth: BatchAwsAuth): MockBedrockBatches {
  const mock: MockBedrockBatches = {
    url: "",
    objects: new Map(),
    jobs: new Map(),
    requests: [],
    complete(jobArn) {
      const job = mock.jobs.get(jobArn)!;
      const input = job.inputDataConfig.s3InputDataConfig.s3Uri.replace("s3://", "");
      const records = new TextDecoder().decode(mock.objects.get(input)!.bytes).split("\n").filter(Boolean).map((line) => JSON.parse(line));
      const output = records.map((record) => {
        const text = record.modelInput.messages.at(-1).content;
        const modelOutput = { id: `msg_${record.recordId}`, type: "message", role: "assistant", model: job.modelId, content: [{ type: "text", text: `echo: ${typeof text === "string" ? text : text[0].text}` }], stop_reason: "end_turn", usage: { input_tokens: 3, output_tokens: 2 } };
        return JSON.stringify({ recordId: record.recordId, modelInput: record.modelInput, modelOutput });
      });
      const outputKey = `${job.outputDataConfig.s3OutputDataConfig.s3Uri.replace("s3://", "")}${jobArn.split("/").at(-1)}/${input.split("/").at(-1)}.out`;
      mock.objects.set(outputKey, { bytes: new TextEncoder().encode(`${output.join("\n")}\n`), lastModified: new Date() });
      Object.assign(job, { status: "Completed", endTime: new Date().toISOString() });
    },
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const body = new Uint8Array(await request.arrayBuffer());
      const service = CONTROL_PLANE.test(url.pathname) ? "bedrock" : "s3";
      const json = service === "bedrock" && body.byteLength ? (JSON.parse(new TextDecoder().decode(body)) as Record<string, unknown>) : undefined;
      mock.requests.push({ method: request.method, path: url.pathname + url.search, service, json });
      const failure = await verify(request, url, body, service, auth);
      if (failure) return service === "s3" ? xmlError(403, "SignatureDoesNotMatch") : awsError(403, "InvalidSignatureException", failure);
      return service === "s3" ? s3(mock, request.method, url, body) : controlPlane(mock, request.method, url, json);
    },
  });
  mock.url = `http://127.0.0.1:${server.port}`;
  return mock;
}
