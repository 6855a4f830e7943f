import { eq, sql } from "drizzle-orm";
import { fromPromise, type SnapshotFrom } from "xstate";
import { type CancelStream, type ResumableStreamInput, type resumableStreamMachine, type StreamEnd, StreamFailed } from "../../actors/resumable-stream";
import type { Clock } from "../../actors/runtime/clock";
import { DurableActors } from "../../actors/runtime/durable-actors";
import type { ActorSnapshotStore, Write } from "../../actors/runtime/snapshot-store";
import { ownerOf } from "../async/ownership";
import type { Database } from "../db/client";
import { requestLogs, resumableStreamEvents, resumableStreams, type ResumableStreamRow } from "../db/schema";
import { badRequest } from "../http/errors";
import type { InferenceCall, KeptStream, KeptStreams, RequestStream } from "../inference/handle";
import type { RequestContext } from "../inference/hooks";
import { EventBatches, type StoredEvent } from "./event-batches";
import { LiveStream, tooLarge } from "./live-stream";
import { isEventStream, SseEventSplitter } from "./sse-events";
import { storedFollow } from "./stored-follow";
import { followerStream, type Subscribe } from "./follower-stream";
import { evictOverTotal } from "./eviction";

const KIND = "stream";
/** How often a node looks for cancels other nodes left for its streams. */
const SIGNAL_CHECK_MS = 100;
/** How long a cancel of a stream another node holds waits for it to end. */
const CANCEL_WAIT_MS = 5_000;
/** Events per insert: three values each, well under SQLite's bound on a statement's parameters. */
const INSERT_ROWS = 300;

export const STREAM_ID_HEADER = "x-gw-stream-id";
const RESUMABLE_HEADER = "x-gw-resumable";
/** The request log's metadata keys: the stream the reply was kept as, and how many times a reader resumed it. */
const STREAM_NOTE = "gw_stream_id";
const RESUMES_NOTE = "gw_stream_resumes";
/** How many times, and how far apart, a resume looks for a log row not written yet. */
const LOG_ROW_TRIES = 10;
const LOG_ROW_RETRY_MS = 500;

const HOLDER_GONE = "the gateway node holding the upstream call stopped before the stream ended; what it stored stays readable";
const CANCELLED = "the stream was cancelled (DELETE /v1/streams/{id})";
const STOPPED = "the gateway node holding the upstream call was stopped before the stream ended; what it stored stays readable";
/** How long a stopping node waits for its relays to store what they read and end. */
const STOP_WAIT_MS = 5_000;

export interface StreamSettings {
  retentionSeconds: number;
  maxStreamBytes: number;
  /** Bytes a reader may leave unread before it is dropped. */
  maxReaderLagBytes: number;
  maxTotalBytes: number;
  flushMs: number;
  followMs: number;
}

export interface ResumableStreamsDeps {
  db: Database;
  snapshots: ActorSnapshotStore;
  clock: Clock;
  settings: () => StreamSettings;
}

/** A stream this node reads from its upstream. */
interface Held {
  live: LiveStream;
  body: ReadableStream<Uint8Array>;
  batches: EventBatches;
  /** The signal the upstream call was sent with. */
  upstream: AbortController;
  /** The request's log metadata, until its row is written when the stream ends. */
  metadata: Record<string, string>;
  /** Resolves once the stream's end is written, after every event it stored. */
  relayed: PromiseWithResolvers<void>;
  /** Stops reading the body and aborts the upstream call; set once the relay reads. */
  cut?: () => void;
}

/** `x-gw-resumable`: true or false, else what the caller's virtual key says; anything else is the caller's mistake. */
function asksResumable({ headers, caller }: RequestContext): boolean {
  const value = headers.get(RESUMABLE_HEADER);
  if (value === null) return caller?.resumableStreams === true;
  const asked = value.trim().toLowerCase();
  if (asked === "true") return true;
  if (asked === "false") return false;
  throw badRequest(`${RESUMABLE_HEADER} must be true or false, not '${value}'`, RESUMABLE_HEADER);
}

/** A stream is named by the request that made it: a background response (`resp_` and the same hex) finds its stream without a lookup. */
const streamIdOf = (requestId: string) => `strm_${requestId.replaceAll("-", "")}`;

/** A streamed Responses call with `background: true` is always kept: it is read back and resumed by its response id. */
const isBackgroundResponse = (call: InferenceCall) => call.operation === "responses" && call.body.background === true;

/**
 * Resumable streams as `stream` actors: a streamed reply kept is read to its end by the gateway
 * whoever listens, its events stored in order, in batches, up to a size bound per stream; readers
 * (the first client and any that resume) follow it from memory on the node that holds it, from
 * the database on any other.
 */
export class ResumableStreams implements KeptStreams {
  private readonly held = new Map<string, Held>();
  private stopping = false;
  /** Looks for log rows not written yet, cleared when the node stops. */
  private readonly logRowRetries = new Set<ReturnType<typeof setTimeout>>();
  private readonly actors: DurableActors<typeof resumableStreamMachine>;

  constructor(private readonly deps: ResumableStreamsDeps) {
    const machine = deps.snapshots.machines.stream.provide({
      actors: { relay: fromPromise(({ input, signal }) => this.relay(input.streamId, signal)) },
    });
    this.actors = new DurableActors({
      kind: KIND,
      machine,
      store: deps.snapshots,
      clock: deps.clock,
      signalCheckMs: SIGNAL_CHECK_MS,
      mirror: (id, snapshot) => this.mirror(id, snapshot),
      committed: (id, snapshot) => this.committed(id, snapshot),
    });
  }

  keep(call: InferenceCall, context: RequestContext): KeptStream | undefined {
    if ((call.operation !== "chat" && call.operation !== "responses") || !(isBackgroundResponse(call) || asksResumable(context))) return undefined;
    const upstream = new AbortController();
    return { signal: upstream.signal, reply: (response) => this.hold(response, call, context, upstream) };
  }

  resume(): Promise<number> {
    return this.actors.resume();
  }

  /** Ends the relays this node runs: their upstream calls cut (their log rows settled), their streams failed with what they stored. */
  async stop(): Promise<void> {
    this.stopping = true;
    const relays = [...this.held.values()];
    for (const held of relays) (held.cut ?? (() => held.upstream.abort()))();
    for (const timer of this.logRowRetries) clearTimeout(timer);
    await Promise.race([Promise.all(relays.map((held) => held.relayed.promise)), Bun.sleep(STOP_WAIT_MS)]);
    await this.actors.stop();
  }

  /** The stream as its owner sees it; undefined when unknown, expired, evicted or another key's. */
  async find(id: string, headers: Headers): Promise<ResumableStreamRow | undefined> {
    const row = await this.deps.db.select().from(resumableStreams).where(eq(resumableStreams.id, id)).get();
    return row && row.owner === (ownerOf(headers) ?? null) ? row : undefined;
  }

  /** The stream `requestId` was kept as, as its owner sees it. */
  async ofRequest(requestId: string, headers: Headers): Promise<RequestStream | undefined> {
    const row = await this.find(streamIdOf(requestId), headers);
    return row && this.requestStream(row);
  }

  private requestStream(row: ResumableStreamRow): RequestStream {
    return {
      state: row.state as RequestStream["state"],
      createdAtMs: row.createdAt.getTime(),
      error: row.error,
      read: (after) => this.reader(row, after),
      cancel: async () => this.requestStream(await this.cancel(row)),
    };
  }

  /** A reader's response: the stream's events after `after`, in its format, then live until it ends. Counts as a resume. */
  async reader(row: ResumableStreamRow, after: number): Promise<Response> {
    const subscribe = await this.follow(row, after);
    return new Response(followerStream(subscribe, row, this.deps.settings().maxReaderLagBytes), { headers: { "content-type": row.contentType, "cache-control": "no-cache", [STREAM_ID_HEADER]: row.id } });
  }

  /** Follows a stream found with `find` from after event `after`: from memory where it is held, else from the database. Counts as a resume. */
  async follow(row: ResumableStreamRow, after: number): Promise<Subscribe> {
    await this.countResume(row);
    const held = this.held.get(row.id);
    if (held) return (follower) => held.live.follow(follower, after);
    return (follower) => storedFollow(this.deps.db, row.id, after, this.deps.settings().followMs, follower);
  }

  /**
   * One more resume, on the stream's row and its request's log row: in the metadata the row is
   * written with when the stream is held here and has not ended, else on the row written already.
   */
  private async countResume(row: ResumableStreamRow): Promise<void> {
    const { db } = this.deps;
    const [counted] = await db.update(resumableStreams).set({ resumes: sql`${resumableStreams.resumes} + 1` }).where(eq(resumableStreams.id, row.id)).returning({ resumes: resumableStreams.resumes });
    const resumes = String(counted?.resumes ?? row.resumes + 1);
    const held = this.held.get(row.id);
    if (held && !held.live.ended) held.metadata[RESUMES_NOTE] = resumes;
    else this.noteOnLogRow(row.requestId, resumes, LOG_ROW_TRIES);
  }

  /** Resumes counted while the stream ran (here or on another node) reach its log row even when it settled before they were noted. */
  private noteResumesAtEnd(id: string, requestId: string): void {
    this.deps.db
      .select({ resumes: resumableStreams.resumes })
      .from(resumableStreams)
      .where(eq(resumableStreams.id, id))
      .get()
      .then((row) => row && row.resumes > 0 && this.noteOnLogRow(requestId, String(row.resumes), LOG_ROW_TRIES))
      .catch((error) => console.error(`resumable streams: reading stream ${id}'s resumes failed`, error));
  }

  /** The log row is written a moment after its stream ended: a row not there yet is looked for again. */
  private noteOnLogRow(requestId: string, resumes: string, tries: number): void {
    const { db } = this.deps;
    db.update(requestLogs)
      .set({ metadata: sql`json_set(${requestLogs.metadata}, ${`$.${RESUMES_NOTE}`}, ${resumes})` })
      .where(eq(requestLogs.id, requestId))
      .then((result) => {
        if (result.rowsAffected === 0 && tries > 1 && !this.stopping) {
          const timer = setTimeout(() => {
            this.logRowRetries.delete(timer);
            this.noteOnLogRow(requestId, resumes, tries - 1);
          }, LOG_ROW_RETRY_MS);
          this.logRowRetries.add(timer);
        }
      })
      .catch((error) => console.error(`resumable streams: noting a resume on request ${requestId}'s log row failed`, error));
  }

  /** Cancels a stream still open, wherever it is held; answers it as it then stands. */
  async cancel(row: ResumableStreamRow): Promise<ResumableStreamRow> {
    if (row.state !== "upstream_open") return row;
    const cancel: CancelStream = { type: "cancel", at: this.deps.clock.now() };
    await this.actors.signal(row.id, cancel);
    const deadline = performance.now() + CANCEL_WAIT_MS;
    for (;;) {
      const now = await this.deps.db.select().from(resumableStreams).where(eq(resumableStreams.id, row.id)).get();
      if (!now || now.state !== "upstream_open" || performance.now() > deadline) return now ?? row;
      await Bun.sleep(SIGNAL_CHECK_MS);
    }
  }

  private async hold(response: Response, call: InferenceCall, context: RequestContext, upstream: AbortController): Promise<Response> {
    if (!response.body || !isEventStream(response)) return response;
    const settings = this.deps.settings();
    const id = streamIdOf(context.id);
    const live = new LiveStream(settings.maxStreamBytes);
    this.held.set(id, { live, body: response.body, upstream, metadata: context.metadata, relayed: Promise.withResolvers(), batches: new EventBatches(settings.flushMs, (events) => this.store(id, events)) });
    const createdAt = this.deps.clock.now();
    const input: ResumableStreamInput = { id, owner: ownerOf(context.headers), requestId: context.id, createdAt, retentionSeconds: settings.retentionSeconds };
    const row = { id, owner: input.owner ?? null, requestId: context.id, operation: call.operation, format: call.format, contentType: response.headers.get("content-type")!, state: "upstream_open", createdAt: new Date(createdAt) };
    try {
      await this.actors.spawn(id, input, [this.deps.db.insert(resumableStreams).values(row)]);
    } catch (error) {
      // Not kept: the reply still reaches its client, as any stream does.
      this.held.delete(id);
      console.error(`resumable stream for request ${context.id} could not be kept`, error);
      return response;
    }
    context.metadata[STREAM_NOTE] = id;
    const headers = new Headers(response.headers);
    headers.set(STREAM_ID_HEADER, id);
    return new Response(followerStream((follower) => live.follow(follower, 0), row, settings.maxReaderLagBytes), { status: response.status, headers });
  }

  /** The actor's invoked relay: reads the upstream to its end (or until cancelled), storing its events. */
  private async relay(id: string, signal: AbortSignal): Promise<StreamEnd> {
    const held = this.held.get(id);
    if (!held) throw new StreamFailed({ at: this.deps.clock.now(), error: HOLDER_GONE });
    let error = await this.readUpstream(held, signal);
    try {
      await held.batches.flush();
    } catch (failure) {
      console.error(`resumable stream ${id}: its last events could not be stored`, failure);
      error ??= `the stream's last events could not be stored: ${(failure as Error)?.message ?? failure}`;
    }
    if (signal.aborted) error = CANCELLED;
    else if (this.stopping) error = STOPPED;
    // The readers following it live had every event; a reader arriving later finds some were not kept.
    held.live.finish(error);
    if (!error && held.live.overBound) error = tooLarge(this.deps.settings().maxStreamBytes);
    if (error) throw new StreamFailed({ at: this.deps.clock.now(), error });
    return { at: this.deps.clock.now() };
  }

  /** Reads the stream's body to its end, its events kept as they come; answers why it broke off, when it did. */
  private async readUpstream(held: Held, signal: AbortSignal): Promise<string | undefined> {
    const reader = held.body.getReader();
    // The body cancelled first: the stream ends where it is, with no error event of the pipeline's own after it.
    const cut = (held.cut = () => {
      reader.cancel().catch(() => undefined);
      held.upstream.abort();
    });
    signal.addEventListener("abort", cut, { once: true });
    const splitter = new SseEventSplitter();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.addAll(held, splitter.push(value));
      }
      this.addAll(held, splitter.end());
      return undefined;
    } catch (failure) {
      return `the upstream stream broke off: ${(failure as Error)?.message ?? failure}`;
    } finally {
      signal.removeEventListener("abort", cut);
    }
  }

  private addAll(held: Held, events: string[]): void {
    for (const event of events) if (held.live.add(event)) held.batches.add({ seq: held.live.count, event });
  }

  /** One batch of a stream's events, with the stream's totals, in one commit. */
  private store(id: string, events: StoredEvent[]): Promise<void> {
    const { db, snapshots } = this.deps;
    const writes: Write[] = [];
    for (let start = 0; start < events.length; start += INSERT_ROWS) {
      writes.push(db.insert(resumableStreamEvents).values(events.slice(start, start + INSERT_ROWS).map(({ seq, event }) => ({ streamId: id, seq, event }))));
    }
    const bytes = events.reduce((sum, { event }) => sum + Buffer.byteLength(event), 0);
    writes.push(db.update(resumableStreams).set({ events: events.at(-1)!.seq, bytes: sql`${resumableStreams.bytes} + ${bytes}` }).where(eq(resumableStreams.id, id)));
    return snapshots.commit(writes, { retry: true });
  }

  /** The stream's row follows its actor's state; an expired stream's row and events go with its actor. */
  private mirror(id: string, snapshot: SnapshotFrom<typeof resumableStreamMachine>): Write[] {
    const { db } = this.deps;
    if (snapshot.status === "done") return [db.delete(resumableStreamEvents).where(eq(resumableStreamEvents.streamId, id)), db.delete(resumableStreams).where(eq(resumableStreams.id, id))];
    const { context } = snapshot;
    return [db.update(resumableStreams).set({ state: String(snapshot.value), error: context.error ?? null, endedAt: context.endedAt === undefined ? null : new Date(context.endedAt) }).where(eq(resumableStreams.id, id))];
  }

  /** Once a stream's end is written, readers arriving later read it from the database, and the oldest ended streams go while the total is past its bound. */
  private committed(id: string, snapshot: SnapshotFrom<typeof resumableStreamMachine>): void {
    const held = snapshot.value === "upstream_open" ? undefined : this.held.get(id);
    if (!held) return;
    this.held.delete(id);
    held.relayed.resolve();
    this.noteResumesAtEnd(id, snapshot.context.requestId);
    evictOverTotal(this.deps.db, this.deps.settings().maxTotalBytes).catch((error) => console.error("resumable streams: evicting the oldest past the total bound failed", error));
  }
}
