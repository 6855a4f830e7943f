/**
 * Veo on the Gemini API and on Vertex AI, as the mock makes videos: `:predictLongRunning` starts an operation, the
 * first poll finds it still running, the next finds it done with a download URI per video, and
 * each video's bytes name its prompt and index; a prompt with "forbidden" in it is filtered out, and one with "one filtered" loses its last
 * video to the filter. An operation and its files belong to the key that
 * started it, as they belong to a Google project: another key gets a 404. Vertex polls with
 * `:fetchPredictOperation` and answers the videos' bytes inline.
 */

export interface VideoOperation {
  name: string;
  key: string;
  prompt: string;
  samples: number;
  polls: number;
}

const googleError = (code: number, status: string, message: string) => Response.json({ error: { code, message, status } }, { status: code });

const OPERATION_PATH = /^\/v1beta\/models\/([^/:]+)\/operations\/(op\d+)$/;
const DOWNLOAD_PATH = /^\/v1beta\/files\/(op\d+)v(\d+):download$/;
/** Where Google says a video is: the SDK takes the file's id from it and downloads from its own base URL. */
const GOOGLE_FILES = "https://generativelanguage.googleapis.com/v1beta/files";

const FILTERED_REASON = "The prompt could not be submitted: it names something forbidden.";

/** How many of an operation's videos Veo's safety filter takes out, going by its prompt. */
const filteredOf = (operation: VideoOperation) => (operation.prompt.includes("forbidden") ? operation.samples : operation.prompt.includes("one filtered") ? 1 : 0);

/** The filter's count and reasons, where it took any video out. */
const filterReport = (filtered: number) => (filtered > 0 ? { raiMediaFilteredCount: filtered, raiMediaFilteredReasons: [FILTERED_REASON] } : {});

/** Starts an operation named `{model resource}/operations/{id}`; a model that is no Veo is refused. */
function started(operations: Map<string, VideoOperation>, model: string, resource: string, key: string, body: Record<string, unknown>): Response {
  if (!model.startsWith("veo")) return googleError(400, "INVALID_ARGUMENT", `${model} does not generate videos`);
  const { instances, parameters } = body as { instances?: Array<{ prompt?: string }>; parameters?: { sampleCount?: number } };
  const id = `op${operations.size + 1}`;
  const operation = { name: `${resource}/operations/${id}`, key, prompt: instances?.[0]?.prompt ?? "", samples: parameters?.sampleCount ?? 1, polls: 0 };
  operations.set(id, operation);
  return Response.json({ name: operation.name });
}

/** The operation a poll names, counted as polled; undefined when the key did not start it. */
function polled(operations: Map<string, VideoOperation>, id: string, key: string): VideoOperation | undefined {
  const operation = operations.get(id);
  if (!operation || operation.key !== key) return undefined;
  operation.polls += 1;
  return operation;
}

/** Veo on Vertex: `{model}:predictLongRunning` starts, `{model}:fetchPredictOperation` polls, the videos come inline. */
export function vertexVideoCall(operations: Map<string, VideoOperation>, request: { resource: string; model: string; method: string; bearer: string; body: Record<string, unknown> }): Response | undefined {
  const { resource, model, method, bearer, body } = request;
  if (method === "predictLongRunning") return started(operations, model, resource, bearer, body);
  if (method !== "fetchPredictOperation") return undefined;
  const name = String(body.operationName ?? "");
  const operation = name.startsWith(`${resource}/operations/`) ? polled(operations, name.slice(name.lastIndexOf("/") + 1), bearer) : undefined;
  if (!operation || operation.name !== name) return googleError(404, "NOT_FOUND", `Operation ${name} not found`);
  if (operation.polls < 2) return Response.json({ name });
  const filtered = filteredOf(operation);
  const videos = Array.from({ length: operation.samples - filtered }, (_, index) => ({ bytesBase64Encoded: Buffer.from(`mp4:${operation.prompt}:${index}`).toString("base64"), mimeType: "video/mp4" }));
  return Response.json({ name, done: true, response: { "@type": "type.googleapis.com/cloud.ai.large_models.vision.GenerateVideoResponse", videos, ...filterReport(filtered) } });
}

/** Answers Veo's start, poll and download on the Gemini API, or undefined for any other call. */
export function videoCall(operations: Map<string, VideoOperation>, request: { method: string; url: URL; key: string; body: Record<string, unknown> }): Response | undefined {
  const { method, url, key, body } = request;
  const start = /^\/v1beta\/models\/([^/:]+):predictLongRunning$/.exec(url.pathname);
  if (start && method === "POST") return started(operations, start[1]!, `models/${start[1]}`, key, body);
  const poll = OPERATION_PATH.exec(url.pathname);
  if (poll && method === "GET") {
    const operation = polled(operations, poll[2]!, key);
    if (!operation) return googleError(404, "NOT_FOUND", "Operation not found");
    if (operation.polls < 2) return Response.json({ name: operation.name });
    // Like Veo's safety filter: a prompt it refuses ends done, with no video (or fewer) and the reason.
    const filtered = filteredOf(operation);
    if (filtered === operation.samples) return Response.json({ name: operation.name, done: true, response: { generateVideoResponse: filterReport(filtered) } });
    const generatedSamples = Array.from({ length: operation.samples - filtered }, (_, index) => ({ video: { uri: `${GOOGLE_FILES}/${poll[2]}v${index}:download?alt=media` } }));
    return Response.json({ name: operation.name, done: true, response: { "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse", generateVideoResponse: { generatedSamples, ...filterReport(filtered) } } });
  }
  const download = DOWNLOAD_PATH.exec(url.pathname);
  if (download && method === "GET") {
    const operation = operations.get(download[1]!);
    if (!operation || operation.key !== key || Number(download[2]) >= operation.samples) return googleError(404, "NOT_FOUND", "File not found");
    if (url.searchParams.get("alt") !== "media") return googleError(400, "INVALID_ARGUMENT", "a download asks for alt=media");
    return new Response(`mp4:${operation.prompt}:${download[2]}`, { headers: { "content-type": "video/mp4" } });
  }
  return undefined;
}
