/** OpenAI's Containers API (code interpreter's sandboxes), as the mock keeps it: containers with their files, by id. */

interface ContainerFile {
  object: { id: string; object: "container.file"; container_id: string; created_at: number; bytes: number; path: string; source: "user" };
  content: Uint8Array;
}

interface Container {
  object: { id: string; object: "container"; created_at: number; status: "running"; name: string; expires_after: unknown };
  files: Map<string, ContainerFile>;
}

const notFound = (what: string) => Response.json({ error: { message: `${what} not found.`, type: "invalid_request_error", param: null, code: null } }, { status: 404 });
const badRequest = (message: string, param: string) => Response.json({ error: { message, type: "invalid_request_error", param, code: null } }, { status: 400 });
const newId = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll("-", "")}${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
const now = () => Math.floor(Date.now() / 1000);
const list = (data: Array<{ id: string }>) => ({ object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: false });

/** A file added as a multipart upload, or by the id of a file uploaded to /v1/files (whose bytes the mock makes up). */
async function addedFile(container: Container, request: Request): Promise<ContainerFile | Response> {
  const isForm = request.headers.get("content-type")?.startsWith("multipart/form-data");
  const form = isForm ? await request.formData() : undefined;
  const upload = form?.get("file");
  const json = isForm ? {} : ((await request.json().catch(() => ({}))) as { file_id?: unknown });
  if (!(upload instanceof Blob) && typeof json.file_id !== "string") return badRequest("Provide either a file or a file_id.", "file");
  const content = upload instanceof Blob ? new Uint8Array(await upload.arrayBuffer()) : new TextEncoder().encode(`content of ${json.file_id}`);
  const name = upload instanceof File ? upload.name : String(json.file_id);
  const id = newId("cfile");
  return { object: { id, object: "container.file", container_id: container.object.id, created_at: now(), bytes: content.length, path: `/mnt/data/${name}`, source: "user" }, content };
}

/** Answers `/containers...` paths (those under /v1), or undefined for any other path. */
export async function containerCall(containers: Map<string, Container>, request: Request, path: string): Promise<Response | undefined> {
  const match = /^\/containers(?:\/(cntr_\w+)(?:\/files(?:\/(cfile_\w+)(\/content)?)?)?)?$/.exec(path);
  if (!match) return undefined;
  const [, id, fileId, content] = match;
  const { method } = request;
  if (!id) {
    if (method === "GET") return Response.json(list([...containers.values()].map((container) => container.object)));
    const body = (await request.json().catch(() => ({}))) as { name?: unknown; expires_after?: unknown };
    if (typeof body.name !== "string") return badRequest("Missing required parameter: 'name'.", "name");
    const container: Container = { object: { id: newId("cntr"), object: "container", created_at: now(), status: "running", name: body.name, expires_after: body.expires_after ?? { anchor: "last_active_at", minutes: 20 } }, files: new Map() };
    containers.set(container.object.id, container);
    return Response.json(container.object);
  }
  const container = containers.get(id);
  if (!container) return notFound(`Container with id '${id}'`);
  if (!path.includes("/files")) {
    if (method !== "DELETE") return Response.json(container.object);
    containers.delete(id);
    return Response.json({ id, object: "container.deleted", deleted: true });
  }
  if (!fileId) {
    if (method === "GET") return Response.json(list([...container.files.values()].map((file) => file.object)));
    const added = await addedFile(container, request);
    if (added instanceof Response) return added;
    container.files.set(added.object.id, added);
    return Response.json(added.object);
  }
  const file = container.files.get(fileId);
  if (!file) return notFound(`File with id '${fileId}'`);
  if (content) return new Response(file.content, { headers: { "content-type": "application/octet-stream" } });
  if (method !== "DELETE") return Response.json(file.object);
  container.files.delete(fileId);
  return Response.json({ id: fileId, object: "container.file.deleted", deleted: true });
}

export type { Container };
