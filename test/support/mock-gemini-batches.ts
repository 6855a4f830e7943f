/**
 * A mock of the Gemini API's Files API (resumable uploads, downloads of generated files) and
 * batch mode (`models/{model}:batchGenerateContent`, `batches/{id}`, `:cancel`) in their real
 * wire formats, keyed by `x-goog-api-key`. Batches stay pending until the test makes them
 * succeed; then each request's answer echoes its last user text, in a responses file for file
 * input, inlined for inline requests.
 */

interface GeminiFile {
  name: string;
  displayName: string;
  mimeType: string;
  sizeBytes: string;
  createTime: string;
  state: "ACTIVE";
  bytes: Uint8Array;
  /** The key whose upload made it: with `keysAreProjects`, only that key sees it. */
  project?: string;
}

type Line = { key?: string; request: { contents?: Array<{ parts: Array<{ text?: string }> }> }; metadata?: { key?: string } };

interface Batch {
  name: string;
  model: string;
  displayName: string;
  state: string;
  createTime: string;
  endTime?: string;
  inputConfig: { fileName?: string; requests?: { requests: Line[] } };
  output?: { responsesFile?: string; inlinedResponses?: { inlinedResponses: unknown[] } };
  batchStats: { requestCount: string; successfulRequestCount?: string };
}

export interface MockGeminiBatches {
  baseUrl: string;
  files: Map<string, GeminiFile>;
  /** Each key is a project of its own, which sees only the files its uploads made (an upload belongs to the key that started it). */
  keysAreProjects: boolean;
  batches: Map<string, Batch>;
  requests: Array<{ method: string; path: string; headers: Headers }>;
  /** Runs a batch to success. */
  succeed(name: string): void;
  stop(): void;
}

const googleError = (code: number, status: string, message: string) => Response.json({ error: { code, message, status } }, { status: code });
const view = ({ bytes: _bytes, project: _project, ...file }: GeminiFile) => file;
const operation = (batch: Batch) => ({ name: batch.name, metadata: { "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch", ...batch }, done: batch.state === "BATCH_STATE_SUCCEEDED", ...(batch.output ? { response: { "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput", ...batch.output } } : {}) });
const answerTo = (line: Line) => ({
  candidates: [{ content: { role: "model", parts: [{ text: `echo: ${line.request.contents?.at(-1)?.parts.map((part) => part.text ?? "").join("")}` }] }, finishReason: "STOP", index: 0 }],
  usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 2, totalTokenCount: 6 },
});

function store(mock: MockGeminiBatches, displayName: string, mimeType: string, bytes: Uint8Array, project?: string): GeminiFile {
  const file: GeminiFile = { name: `files/${crypto.randomUUID().slice(0, 10)}`, displayName, mimeType, sizeBytes: String(bytes.byteLength), createTime: new Date().toISOString(), state: "ACTIVE", bytes, project };
  mock.files.set(file.name, file);
  return file;
}

const pendingUploads = new Map<string, { displayName: string; mimeType: string; length: number; project: string }>();

async function upload(mock: MockGeminiBatches, request: Request, url: URL): Promise<Response> {
  const command = request.headers.get("x-goog-upload-command");
  if (command === "start") {
    if (request.headers.get("x-goog-upload-protocol") !== "resumable") return googleError(400, "INVALID_ARGUMENT", "resumable protocol expected");
    // Proto JSON: either spelling of a field name is taken.
    const body = (await request.json()) as { file?: { display_name?: string; displayName?: string } };
    const id = crypto.randomUUID();
    pendingUploads.set(id, { displayName: body.file?.displayName ?? body.file?.display_name ?? "upload", mimeType: request.headers.get("x-goog-upload-header-content-type") ?? "", length: Number(request.headers.get("x-goog-upload-header-content-length")), project: request.headers.get("x-goog-api-key")! });
    return new Response(null, { headers: { "x-goog-upload-url": `${url.origin}/upload/v1beta/files?upload_id=${id}`, "x-goog-upload-status": "active" } });
  }
  const pending = pendingUploads.get(url.searchParams.get("upload_id") ?? "");
  if (!pending || command !== "upload, finalize" || request.headers.get("x-goog-upload-offset") !== "0") return googleError(400, "INVALID_ARGUMENT", "unknown upload or command");
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength !== pending.length) return googleError(400, "INVALID_ARGUMENT", "upload length differs from the announced one");
  return Response.json({ file: view(store(mock, pending.displayName, pending.mimeType, bytes, pending.project)) }, { headers: { "x-goog-upload-status": "final" } });
}

function createBatch(mock: MockGeminiBatches, model: string, body: { batch?: { display_name?: string; input_config?: { file_name?: string; requests?: { requests: Line[] } } } }): Response {
  const input = body.batch?.input_config;
  const lines = input?.file_name ? mock.files.get(input.file_name) : undefined;
  if (input?.file_name && !lines) return googleError(404, "NOT_FOUND", `file ${input.file_name} not found`);
  const count = lines ? new TextDecoder().decode(lines.bytes).split("\n").filter(Boolean).length : (input?.requests?.requests.length ?? 0);
  if (count === 0) return googleError(400, "INVALID_ARGUMENT", "the batch has no requests");
  const batch: Batch = {
    name: `batches/${crypto.randomUUID().slice(0, 10)}`,
    model: `models/${model}`,
    displayName: body.batch?.display_name ?? "",
    state: "BATCH_STATE_PENDING",
    createTime: new Date().toISOString(),
    inputConfig: input?.file_name ? { fileName: input.file_name } : { requests: input!.requests },
    batchStats: { requestCount: String(count) },
  };
  mock.batches.set(batch.name, batch);
  return Response.json(operation(batch));
}

function route(mock: MockGeminiBatches, method: string, path: string, body: unknown, key: string): Response {
  const seen = (file: GeminiFile) => !mock.keysAreProjects || file.project === key;
  const model = path.match(/^\/v1beta\/models\/([^:]+):batchGenerateContent$/)?.[1];
  if (model) return createBatch(mock, model, body as never);
  const download = path.match(/^\/download\/v1beta\/(files\/[^:]+):download$/)?.[1];
  if (download) return mock.files.has(download) ? new Response(mock.files.get(download)!.bytes, { headers: { "content-type": "application/octet-stream" } }) : googleError(404, "NOT_FOUND", "no such file");
  const [, collection, id, action] = path.match(/^\/v1beta\/(files|batches)(?:\/([^:]+))?(?::(\w+))?$/) ?? [];
  if (collection === "files") {
    if (!id) return Response.json({ files: [...mock.files.values()].filter(seen).map(view) });
    const file = mock.files.get(`files/${id}`);
    if (!file) return googleError(404, "NOT_FOUND", "no such file");
    if (!seen(file)) return googleError(403, "PERMISSION_DENIED", `You do not have permission to access the File ${id} or it may not exist.`);
    if (method === "DELETE") mock.files.delete(file.name);
    return Response.json(method === "DELETE" ? {} : view(file));
  }
  if (collection === "batches") {
    if (!id) return Response.json({ operations: [...mock.batches.values()].map(operation) });
    const batch = mock.batches.get(`batches/${id}`);
    if (!batch) return googleError(404, "NOT_FOUND", "no such batch");
    if (action === "cancel") {
      batch.state = "BATCH_STATE_CANCELLED";
      return Response.json({});
    }
    return Response.json(operation(batch));
  }
  return googleError(404, "NOT_FOUND", `no route ${path}`);
}

export function startMockGeminiBatches(...apiKeys: string[]): MockGeminiBatches {
  const mock: MockGeminiBatches = {
    baseUrl: "",
    files: new Map(),
    keysAreProjects: false,
    batches: new Map(),
    requests: [],
    succeed(name) {
      const batch = mock.batches.get(name)!;
      const fileInput = batch.inputConfig.fileName ? mock.files.get(batch.inputConfig.fileName) : undefined;
      const lines: Line[] = fileInput ? new TextDecoder().decode(fileInput.bytes).split("\n").filter(Boolean).map((text) => JSON.parse(text) as Line) : batch.inputConfig.requests!.requests;
      if (fileInput) {
        const output = lines.map((line) => JSON.stringify({ key: line.key, response: answerTo(line) })).join("\n");
        batch.output = { responsesFile: store(mock, `${batch.name}-output`, "application/jsonl", new TextEncoder().encode(`${output}\n`)).name };
      } else {
        batch.output = { inlinedResponses: { inlinedResponses: lines.map((line) => ({ response: answerTo(line), metadata: line.metadata })) } };
      }
      Object.assign(batch, { state: "BATCH_STATE_SUCCEEDED", endTime: new Date().toISOString(), batchStats: { requestCount: String(lines.length), successfulRequestCount: String(lines.length) } });
    },
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      mock.requests.push({ method: request.method, path: url.pathname + url.search, headers: request.headers });
      const key = request.headers.get("x-goog-api-key") ?? "";
      if (!apiKeys.includes(key)) return googleError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.");
      if (url.pathname === "/upload/v1beta/files") return upload(mock, request, url);
      const body = request.method === "POST" ? await request.json().catch(() => ({})) : undefined;
      return route(mock, request.method, url.pathname, body, key);
    },
  });
  mock.baseUrl = `http://127.0.0.1:${server.port}/v1beta`;
  return mock;
}
