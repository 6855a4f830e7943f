import { and, eq, lt } from "drizzle-orm";
import { createParser } from "eventsource-parser";
import type { Database } from "../../db/client";
import { providerObjectKeys } from "../../db/schema";
import type { ProviderStore } from "../../provider-registry/store";
import { type VideoOperation, videoFileIdsOf } from "../formats/genai/video-operation";
import type { Creates } from "../../upstream/provider-objects";

/** Providers keep most objects for at most this long (OpenAI's stored responses: 30 days). */
const REMEMBERED_FOR_MS = 30 * 86_400_000;
/** Objects this node answers from memory; the rest are read from the database. */
const RECENT_LIMIT = 10_000;

/** The object id a key is remembered under: an id as it is, a name (`files/abc`) by its last segment. */
export const objectIdOf = (idOrName: string) => idOrName.slice(idOrName.lastIndexOf("/") + 1);

/** The id (or Gemini's name) of an object a reply or a stream's first event shows: a chat completion's, a response's, a file's. */
function objectIdIn(json: string): string | undefined {
  try {
    const reply = JSON.parse(json) as { id?: unknown; name?: unknown; file?: { name?: unknown }; response?: { id?: unknown } };
    const id = reply.response?.id ?? reply.id ?? reply.name ?? reply.file?.name;
    return typeof id === "string" && id.length > 0 ? objectIdOf(id) : undefined;
  } catch {
    return undefined;
  }
}

/** Gemini's resumable upload: the start's reply names the URL the bytes go to, the session's id in its query. */
const UPLOAD_URL = "x-goog-upload-url";
export const UPLOAD_SESSION_PARAM = "upload_id";

/** The files a finished Veo operation names, each by the download URI of one video. */
function videoFilesIn(json: string): string[] {
  try {
    return videoFileIdsOf(JSON.parse(json) as VideoOperation);
  } catch {
    return [];
  }
}

/**
 * What a create's reply made: an upload session (its id in the upload URL), what its `Location`
 * names, the videos a finished operation names, else the object its JSON shows.
 */
export function createdIdsOf(creates: Creates, reply: { headers: Headers; body: string }): string[] {
  if (creates === "video_files") return videoFilesIn(reply.body);
  let id: string | null | undefined;
  if (creates === true) id = objectIdIn(reply.body);
  else if (creates === "location") id = objectIdOf(reply.headers.get("location")?.split("?")[0] ?? "");
  else {
    const uploadUrl = reply.headers.get(UPLOAD_URL);
    id = uploadUrl && URL.parse(uploadUrl)?.searchParams.get(UPLOAD_SESSION_PARAM);
  }
  return id ? [id] : [];
}

/**
 * A streamed create, passed on as it comes, its first event (`response.created`, a chat chunk)
 * read for what it made. The stream ends only once `remember` has settled: by then every node can
 * find the key.
 */
export function rememberingStreamedCreate(stream: ReadableStream<Uint8Array>, remember: (id: string) => Promise<void>): ReadableStream<Uint8Array> {
  const text = new TextDecoder();
  let remembered: Promise<void> | undefined;
  let read = false;
  const parser = createParser({
    onEvent(event) {
      if (read) return;
      read = true;
      const id = objectIdIn(event.data);
      if (id) remembered = remember(id);
    },
  });
  return stream.pipeThrough(
    new TransformStream({
      transform(bytes, controller) {
        if (!read) parser.feed(text.decode(bytes, { stream: true }));
        controller.enqueue(bytes);
      },
      flush: () => remembered,
    }),
  );
}

/**
 * Which key created an object a provider keeps, so that later calls on it (a read, a
 * `previous_response_id`) reach the account that has it: a provider's keys may belong to
 * different projects, which do not see each other's objects. Only providers with several enabled
 * keys are tracked. Kept in the database, so every node knows; the last RECENT_LIMIT in memory.
 */
export class ObjectKeys {
  private readonly recent = new Map<string, string>();

  constructor(
    private readonly db: Database,
    private readonly providers: ProviderStore,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Remembers the key that made an object. Awaited before the create is answered: a client that
   * reads the object at once, on any node, must find its key.
   */
  async remember(provider: string, objectId: string, keyId: string): Promise<void> {
    this.keep(provider, objectId, keyId);
    const now = this.clock();
    await this.db.batch([
      this.db.delete(providerObjectKeys).where(lt(providerObjectKeys.createdAt, new Date(now - REMEMBERED_FOR_MS))),
      this.db
        .insert(providerObjectKeys)
        .values({ provider, objectId, keyId, createdAt: new Date(now) })
        .onConflictDoUpdate({ target: [providerObjectKeys.provider, providerObjectKeys.objectId], set: { keyId, createdAt: new Date(now) } }),
    ]);
  }

  /** The key that made the object (by id, or name), when the provider has several and that key is still enabled: calls on the object go with it. */
  async keyOf(provider: string, idOrName: string): Promise<string | undefined> {
    if (!this.tracks(provider)) return undefined;
    const keyId = await this.remembered(provider, objectIdOf(idOrName));
    return this.providers.get(provider)?.keys.some((key) => key.id === keyId && key.enabled) ? keyId : undefined;
  }

  /** Whether the provider's keys may belong to several accounts, so that an object's key matters. */
  tracks(provider: string): boolean {
    return (this.providers.get(provider)?.keys.filter((key) => key.enabled).length ?? 0) > 1;
  }

  private async remembered(provider: string, objectId: string): Promise<string | undefined> {
    const known = this.recent.get(`${provider}\n${objectId}`);
    if (known) return known;
    const row = await this.db
      .select({ keyId: providerObjectKeys.keyId })
      .from(providerObjectKeys)
      .where(and(eq(providerObjectKeys.provider, provider), eq(providerObjectKeys.objectId, objectId)))
      .get();
    if (row) this.keep(provider, objectId, row.keyId);
    return row?.keyId;
  }

  private keep(provider: string, objectId: string, keyId: string): void {
    if (this.recent.size >= RECENT_LIMIT) this.recent.delete(this.recent.keys().next().value!);
    this.recent.set(`${provider}\n${objectId}`, keyId);
  }
}
