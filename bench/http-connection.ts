import type { Socket } from "bun";

/** What the load generator learns about one request on the wire (times from Bun.nanoseconds). */
export interface Exchange {
  status: number;
  /** The first bytes of the body arrived (the first SSE event of a stream). */
  firstByteAt: number;
  doneAt: number;
}

const HEAD_END = "\r\n\r\n";
const LINE_END = "\r\n";

/**
 * One keep-alive HTTP/1.1 connection on a raw socket: writes prebuilt request bytes and frames
 * the reply (content-length or chunked) without building objects per request, so the load
 * generator costs a few microseconds a request and times each at nanosecond resolution.
 */
export class HttpConnection {
  private socket!: Socket<HttpConnection>;
  private buffered: Buffer | undefined;
  private phase: "idle" | "head" | "sized" | "chunked" = "idle";
  private remaining = 0;
  private status = 0;
  private firstByteAt = 0;
  private unsent: Uint8Array | undefined;
  closed = false;

  private constructor(private readonly onExchange: (connection: HttpConnection, exchange: Exchange) => void) {}

  static async open(port: number, onExchange: (connection: HttpConnection, exchange: Exchange) => void): Promise<HttpConnection> {
    const connection = new HttpConnection(onExchange);
    connection.socket = await Bun.connect<HttpConnection>({
      hostname: "127.0.0.1",
      port,
      data: connection,
      socket: {
        data: (socket, chunk) => socket.data.receive(chunk),
        drain: (socket) => socket.data.flushUnsent(),
        close: (socket) => socket.data.lost(),
        error: (socket) => socket.data.lost(),
      },
    });
    connection.socket.setNoDelay(true);
    return connection;
  }

  get busy(): boolean {
    return this.phase !== "idle";
  }

  send(request: Uint8Array): void {
    this.phase = "head";
    this.firstByteAt = 0;
    const written = this.socket.write(request);
    if (written < request.length) this.unsent = request.subarray(Math.max(0, written));
  }

  close(): void {
    this.closed = true;
    this.socket.end();
  }

  private flushUnsent(): void {
    if (!this.unsent) return;
    const rest = this.unsent;
    this.unsent = undefined;
    const written = this.socket.write(rest);
    if (written < rest.length) this.unsent = rest.subarray(Math.max(0, written));
  }

  private lost(): void {
    const wasBusy = this.busy && !this.closed;
    this.closed = true;
    this.phase = "idle";
    if (wasBusy) this.onExchange(this, { status: 0, firstByteAt: 0, doneAt: Bun.nanoseconds() });
  }

  private receive(chunk: Buffer): void {
    if (this.phase === "idle") return;
    const now = Bun.nanoseconds();
    let bytes = this.buffered ? Buffer.concat([this.buffered, chunk]) : chunk;
    this.buffered = undefined;
    if (this.phase === "head") {
      const end = bytes.indexOf(HEAD_END);
      if (end < 0) return void (this.buffered = bytes);
      this.readHead(bytes.toString("latin1", 0, end));
      bytes = bytes.subarray(end + HEAD_END.length);
    }
    if (bytes.length > 0 && this.firstByteAt === 0) this.firstByteAt = now;
    const rest = this.phase === "sized" ? this.readSized(bytes) : this.readChunks(bytes);
    if (rest === "done") this.finish(now);
    else if (rest.length > 0) this.buffered = rest;
  }

  private readHead(head: string): void {
    this.status = Number(head.slice(9, 12));
    const lower = head.toLowerCase();
    if (lower.includes("\r\ntransfer-encoding: chunked")) {
      this.phase = "chunked";
      return;
    }
    this.phase = "sized";
    this.remaining = Number(/\r\ncontent-length:\s*(\d+)/.exec(lower)?.[1] ?? 0);
  }

  private readSized(bytes: Buffer): Buffer | "done" {
    this.remaining -= bytes.length;
    return this.remaining <= 0 ? "done" : Buffer.alloc(0);
  }

  /** Consumes whole chunks; returns the bytes of an incomplete one, or "done" at the last chunk. */
  private readChunks(bytes: Buffer): Buffer | "done" {
    let rest = bytes;
    for (;;) {
      const lineEnd = rest.indexOf(LINE_END);
      if (lineEnd < 0) return rest;
      const size = Number.parseInt(rest.toString("latin1", 0, lineEnd), 16);
      const whole = lineEnd + LINE_END.length + size + LINE_END.length;
      if (rest.length < whole) return rest;
      rest = rest.subarray(whole);
      if (size === 0) return "done";
    }
  }

  private finish(doneAt: number): void {
    this.phase = "idle";
    this.onExchange(this, { status: this.status, firstByteAt: this.firstByteAt || doneAt, doneAt });
  }
}

/** The bytes of one POST, built once and written as is for every request of a run. */
export function requestBytes(port: number, path: string, body: unknown, headers: Record<string, string> = {}): Uint8Array {
  const payload = Buffer.from(JSON.stringify(body));
  const lines = [
    `POST ${path} HTTP/1.1`,
    `host: 127.0.0.1:${port}`,
    "content-type: application/json",
    `content-length: ${payload.length}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`), payload]);
}
