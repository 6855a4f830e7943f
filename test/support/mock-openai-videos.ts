/**
 * OpenAI's Videos API (Sora) as the mock keeps it: a create (a multipart form, as the SDK sends
 * it, or JSON) queues a video that advances a status each time it is read, then its content is
 * bytes of its own (`variant=thumbnail` an image); a remix is a new video naming its source. A
 * prompt with "forbidden" in it fails instead, as Sora's moderation fails one.
 */

interface Video {
  object: {
    id: string;
    object: "video";
    model: string;
    status: "queued" | "in_progress" | "completed" | "failed";
    progress: number;
    created_at: number;
    completed_at: number | null;
    seconds: string;
    size: string;
    prompt: string;
    remixed_from_video_id: string | null;
    error: { code: string; message: string } | null;
  };
  /** The `input_reference` image the create carried, if any. */
  reference?: Uint8Array;
}

const videoError = (status: number, message: string, param: string | null = null) => Response.json({ error: { message, type: "invalid_request_error", param, code: null } }, { status });
const newId = () => `video_${crypto.randomUUID().replaceAll("-", "")}`;
const list = (data: Array<{ id: string }>) => ({ object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: false });

/** What the client asked for, from a form or JSON: every field a string, as a form has them, and the reference image of a form. */
interface Fields {
  text: Record<string, string>;
  reference?: Uint8Array;
}

async function fieldsOf(request: Request): Promise<Fields> {
  if (request.headers.get("content-type")?.startsWith("multipart/form-data")) {
    const form = await request.formData();
    const reference = form.get("input_reference");
    const text = Object.fromEntries([...form.entries()].flatMap(([name, value]) => (typeof value === "string" ? [[name, value]] : [])));
    return { text, reference: reference instanceof Blob ? new Uint8Array(await reference.arrayBuffer()) : undefined };
  }
  const json = (await request.json().catch(() => ({}))) as Record<string, unknown>;
  return { text: Object.fromEntries(Object.entries(json).map(([name, value]) => [name, String(value)])) };
}

function queued({ text: fields, reference }: Fields, remixedFrom: Video | undefined): Video {
  return {
    reference,
    object: {
      id: newId(),
      object: "video",
      model: fields.model ?? remixedFrom?.object.model ?? "sora-2",
      status: "queued",
      progress: 0,
      created_at: Math.floor(Date.now() / 1000),
      completed_at: null,
      seconds: fields.seconds ?? remixedFrom?.object.seconds ?? "4",
      size: fields.size ?? remixedFrom?.object.size ?? "720x1280",
      prompt: fields.prompt!,
      remixed_from_video_id: remixedFrom?.object.id ?? null,
      error: null,
    },
  };
}

/** Each read moves a video on: queued, then in progress, then completed (or failed, for a forbidden prompt). */
function advance(video: Video): void {
  const { object } = video;
  if (object.status === "queued") Object.assign(object, { status: "in_progress", progress: 50 });
  else if (object.status !== "in_progress") return;
  else if (object.prompt.includes("forbidden")) Object.assign(object, { status: "failed", error: { code: "moderation_blocked", message: "Your request was blocked by our moderation system." } });
  else Object.assign(object, { status: "completed", progress: 100, completed_at: Math.floor(Date.now() / 1000) });
}

/** The bytes of a video's content: its id in the "file", so a test can tell whose it got. */
export const videoBytes = (id: string, variant: string) => new TextEncoder().encode(`${variant === "thumbnail" ? "WEBP" : "MP4"} of ${id}\u0000\u00ff`);

/** A character made from a video, which later prompts may cast. */
async function characterCall(request: Request, id: string | undefined): Promise<Response> {
  if (id) return Response.json({ id, object: "video.character", name: "kept", created_at: 0 });
  const { text } = await fieldsOf(request);
  if (!text.name) return videoError(400, "Missing required parameter: 'name'.", "name");
  return Response.json({ id: `char_${crypto.randomUUID().slice(0, 8)}`, object: "video.character", name: text.name, created_at: Math.floor(Date.now() / 1000) });
}

/** Answers `/videos...` paths (those under /v1), or undefined for any other path. */
export async function videoCall(videos: Map<string, Video>, request: Request, url: URL, path: string): Promise<Response | undefined> {
  const character = /^\/videos\/characters(?:\/(char_[\w-]+))?$/.exec(path);
  if (character) return characterCall(request, character[1]);
  const match = /^\/videos(?:\/(edits|extensions)|\/(video_\w+)(?:\/(content|remix))?)?$/.exec(path);
  if (!match) return undefined;
  const [, derived, id, action] = match;
  const { method } = request;
  if (derived) {
    const fields = await fieldsOf(request);
    if (!fields.text.prompt) return videoError(400, "Missing required parameter: 'prompt'.", "prompt");
    const video = queued(fields, undefined);
    videos.set(video.object.id, video);
    return Response.json(video.object);
  }
  if (!id) {
    if (method === "GET") return Response.json(list([...videos.values()].map((video) => video.object)));
    const fields = await fieldsOf(request);
    if (!fields.text.prompt) return videoError(400, "Missing required parameter: 'prompt'.", "prompt");
    const video = queued(fields, undefined);
    videos.set(video.object.id, video);
    return Response.json(video.object);
  }
  const video = videos.get(id);
  if (!video) return videoError(404, `Video with id '${id}' not found.`);
  if (action === "remix") {
    const fields = await fieldsOf(request);
    if (video.object.status !== "completed") return videoError(400, "Only completed videos can be remixed.");
    const remix = queued(fields, video);
    videos.set(remix.object.id, remix);
    return Response.json(remix.object);
  }
  if (action === "content") {
    if (video.object.status !== "completed") return videoError(400, "Video is not ready yet.");
    const variant = url.searchParams.get("variant") ?? "video";
    return new Response(videoBytes(id, variant), { headers: { "content-type": variant === "thumbnail" ? "image/webp" : "video/mp4" } });
  }
  if (method === "DELETE") {
    videos.delete(id);
    return Response.json({ id, object: "video.deleted", deleted: true });
  }
  advance(video);
  return Response.json(video.object);
}

export type { Video };
