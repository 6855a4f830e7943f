/**
 * OpenAI's Uploads API (a large file sent in parts, then completed into a file) and fine-tuning
 * jobs (which train on a file of the account), as the mock keeps them.
 */
import type { MockFileStore } from "./mock-openai-files";
import type { PlatformRequest } from "./mock-openai-platform";

const now = () => Math.floor(Date.now() / 1000);
const newId = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
const notFound = (what: string) => Response.json({ error: { message: `No ${what} found.`, type: "invalid_request_error", param: null, code: null } }, { status: 404 });
const list = (data: Array<{ id: string }>) => ({ object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: false });

interface Upload {
  object: { id: string; object: "upload"; filename: string; purpose: string; bytes: number; status: "pending" | "completed" | "cancelled"; created_at: number; expires_at: number; file: unknown };
  parts: Map<string, Uint8Array>;
}

type JobStatus = "queued" | "running" | "paused" | "cancelled";
interface Job {
  id: string;
  object: "fine_tuning.job";
  model: string;
  training_file: string;
  status: JobStatus;
  created_at: number;
  fine_tuned_model: null;
}

export class MockTraining {
  readonly uploads = new Map<string, Upload>();
  readonly jobs = new Map<string, Job>();

  constructor(private readonly store: MockFileStore) {}

  /** Answers `/uploads...` and `/fine_tuning/jobs...` (under /v1), or undefined for any other path. */
  handle(method: string, path: string, json: Record<string, unknown>, form: PlatformRequest["form"]): Promise<Response> | Response | undefined {
    const upload = /^\/uploads(?:\/(upload_\w+)\/(parts|complete|cancel))?$/.exec(path);
    if (upload) return this.onUpload(upload[1], upload[2], json, form);
    const job = /^\/fine_tuning\/jobs(?:\/(ftjob-\w+)(?:\/(cancel|pause|resume|events|checkpoints))?)?$/.exec(path);
    if (job) return this.onJob(method, job[1], job[2], json);
    return undefined;
  }

  private async onUpload(id: string | undefined, action: string | undefined, json: Record<string, unknown>, form: PlatformRequest["form"]): Promise<Response> {
    if (!id) {
      const created: Upload = { object: { id: newId("upload"), object: "upload", filename: String(json.filename), purpose: String(json.purpose), bytes: Number(json.bytes), status: "pending", created_at: now(), expires_at: now() + 3600, file: null }, parts: new Map() };
      this.uploads.set(created.object.id, created);
      return Response.json(created.object);
    }
    const found = this.uploads.get(id);
    if (!found) return notFound(`upload with id '${id}'`);
    if (action === "parts") {
      const data = form?.get("data");
      if (!(data instanceof Blob)) return Response.json({ error: { message: "data is required", type: "invalid_request_error", param: "data", code: null } }, { status: 400 });
      const part = { id: newId("part"), object: "upload.part", created_at: now(), upload_id: id };
      found.parts.set(part.id, new Uint8Array(await data.arrayBuffer()));
      return Response.json(part);
    }
    if (action === "cancel") {
      found.object.status = "cancelled";
      return Response.json(found.object);
    }
    const bytes = Buffer.concat(((json.part_ids as string[]) ?? []).map((partId) => found.parts.get(partId) ?? new Uint8Array()));
    if (bytes.byteLength !== found.object.bytes) return Response.json({ error: { message: `the parts hold ${bytes.byteLength} bytes, not ${found.object.bytes}`, type: "invalid_request_error", param: "part_ids", code: null } }, { status: 400 });
    const { content: _bytes, ...file } = this.store.store(found.object.filename, found.object.purpose, bytes);
    Object.assign(found.object, { status: "completed", file });
    return Response.json(found.object);
  }

  private onJob(method: string, id: string | undefined, action: string | undefined, json: Record<string, unknown>): Response {
    if (!id) {
      if (method === "GET") return Response.json(list([...this.jobs.values()]));
      if (!this.store.files.has(String(json.training_file))) return Response.json({ error: { message: `invalid training_file: ${json.training_file}`, type: "invalid_request_error", param: "training_file", code: null } }, { status: 400 });
      const created: Job = { id: `ftjob-${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`, object: "fine_tuning.job", model: String(json.model), training_file: String(json.training_file), status: "queued", created_at: now(), fine_tuned_model: null };
      this.jobs.set(created.id, created);
      return Response.json(created);
    }
    const found = this.jobs.get(id);
    if (!found) return notFound(`fine-tuning job with id '${id}'`);
    if (action === "events") return Response.json(list([{ id: `ftevent-${id}`, object: "fine_tuning.job.event", created_at: found.created_at, level: "info", message: `Job is ${found.status}` } as { id: string }]));
    if (action === "checkpoints") return Response.json(list([]));
    const next: Record<string, JobStatus> = { cancel: "cancelled", pause: "paused", resume: "running" };
    if (action) found.status = next[action]!;
    return Response.json(found);
  }
}
