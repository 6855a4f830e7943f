/**
 * The many-open-streams load, as its own process: the StreamPlan JSON on its stdin, it opens
 * `streams` connections (a batch every few ms, so the listen queue never overflows), sends one
 * streamed request on each, and times every arrival of SSE events on every stream until all have
 * ended. Prints one StreamResult JSON line. A stream that closes before its last chunk, or
 * answers other than 200, counts as dropped.
 */
import { requestBytes } from "./http-connection";
import { SampleLog, type Summary, summarize } from "./samples";

export interface StreamPlan {
  port: number;
  path: string;
  body: unknown;
  headers?: Record<string, string>;
  streams: number;
  /** How long a stream may take before it counts as dropped. */
  limitMs: number;
}

export interface StreamResult {
  /** The most streams that were open (first event seen, last not yet) at one time. */
  opened: number;
  completed: number;
  dropped: number;
  /** Time between two arrivals of events on one stream, ms. */
  gapMs: Summary;
  /** From sending the request to its first event, ms. */
  firstEventMs: Summary;
}

const BATCH = 200;
const BATCH_EVERY_MS = 20;
const EVENT = Buffer.from("data: ");
const LAST_CHUNK = Buffer.from("\r\n0\r\n\r\n");

interface Stream {
  sentAt: number;
  lastEventAt: number;
  status: number;
  tail: Buffer;
  finished: boolean;
}

async function main(plan: StreamPlan): Promise<StreamResult> {
  const request = requestBytes(plan.port, plan.path, plan.body, plan.headers);
  const gaps = new SampleLog();
  const firstEvents = new SampleLog();
  let [open, mostOpen, completed, dropped, ended] = [0, 0, 0, 0, 0];
  let allEnded: () => void = () => {};
  const done = new Promise<void>((resolve) => (allEnded = resolve));
  const end = (stream: Stream, ok: boolean) => {
    if (stream.finished) return;
    stream.finished = true;
    if (stream.lastEventAt) open--;
    if (ok) completed++;
    else dropped++;
    if (++ended === plan.streams) allEnded();
  };
  const receive = (stream: Stream, chunk: Buffer) => {
    const now = Bun.nanoseconds();
    if (stream.status === 0) stream.status = Number(chunk.toString("latin1", 9, 12));
    if (chunk.includes(EVENT)) {
      if (stream.lastEventAt === 0) {
        firstEvents.add((now - stream.sentAt) / 1e6);
        mostOpen = Math.max(mostOpen, ++open);
      } else gaps.add((now - stream.lastEventAt) / 1e6);
      stream.lastEventAt = now;
    }
    const tail = Buffer.concat([stream.tail, chunk]).subarray(-LAST_CHUNK.length);
    stream.tail = tail;
    if (tail.equals(LAST_CHUNK)) end(stream, stream.status === 200);
  };
  const sockets: { end(): void }[] = [];
  for (let opened = 0; opened < plan.streams; opened += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, plan.streams - opened) }, async () => {
      const stream: Stream = { sentAt: 0, lastEventAt: 0, status: 0, tail: Buffer.alloc(0), finished: false };
      try {
        const socket = await Bun.connect<Stream>({
          hostname: "127.0.0.1",
          port: plan.port,
          data: stream,
          socket: {
            data: (socket, chunk) => receive(socket.data, chunk),
            close: (socket) => end(socket.data, false),
            error: (socket) => end(socket.data, false),
          },
        });
        stream.sentAt = Bun.nanoseconds();
        socket.write(request);
        sockets.push(socket);
      } catch {
        end(stream, false);
      }
    });
    await Promise.all(batch);
    await Bun.sleep(BATCH_EVERY_MS);
  }
  await Promise.race([done, Bun.sleep(plan.limitMs)]);
  // Read before the sockets are ended: their close callbacks would count the unfinished streams again.
  const result = { opened: mostOpen, completed, dropped: dropped + plan.streams - ended, gapMs: summarize(gaps), firstEventMs: summarize(firstEvents) };
  for (const socket of sockets) socket.end();
  return result;
}

if (import.meta.main) {
  const result = await main(JSON.parse(await Bun.stdin.text()) as StreamPlan);
  console.log(JSON.stringify(result));
  process.exit(0);
}
