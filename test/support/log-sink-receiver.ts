import { Webhook } from "standardwebhooks";

export type SinkRow = Record<string, unknown> & { id: string };

export interface SinkBatch {
  path: string;
  webhookId: string;
  rows: SinkRow[];
}

export interface LogSinkReceiver {
  url: string;
  /** The Standard Webhooks secret every batch must be signed with. */
  secret: string;
  /** Batches taken (answered 200, or being held), in arrival order. */
  accepted: SinkBatch[];
  /** Batches answered 503 while `down`. */
  refused: number;
  /** Batches whose body was not gzip, or whose signature did not verify: a test fails on any. */
  rejected: string[];
  /** While true, every batch is answered 503 (after it is checked). */
  down: boolean;
  /** While set, a batch is kept, then its answer waits for this: a sender killed meanwhile never learns it was taken. */
  hold?: Promise<void>;
  /** Resolves with the next batch kept. */
  nextBatch(): Promise<SinkBatch>;
  /** The rows accepted on `path`, in order, duplicates included. */
  rowsOn(path: string): SinkRow[];
  stop(): void;
}

/** An HTTP log sink receiver on a random loopback port: undoes the gzip, verifies the signature over the JSON lines, and keeps the rows. */
export function startLogSinkReceiver(secret = "whsec_c2luay1yZWNlaXZlci1zZWNyZXQtMDEyMzQ1Njc4OQ=="): LogSinkReceiver {
  const verifier = new Webhook(secret);
  const waiting: Array<(batch: SinkBatch) => void> = [];
  const receiver: LogSinkReceiver = {
    url: "",
    secret,
    accepted: [],
    refused: 0,
    rejected: [],
    down: false,
    nextBatch: () => new Promise((resolve) => waiting.push(resolve)),
    rowsOn: (path) => receiver.accepted.filter((batch) => batch.path === path).flatMap((batch) => batch.rows),
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const path = new URL(request.url).pathname;
      let lines: string;
      try {
        if (request.headers.get("content-encoding") !== "gzip") throw new Error("the body is not gzip");
        lines = new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await request.arrayBuffer())));
        verifier.verify(lines, Object.fromEntries(request.headers), { jsonParse: false });
      } catch (error) {
        receiver.rejected.push(`${path}: ${String(error)}`);
        return new Response("rejected", { status: 400 });
      }
      if (receiver.down) {
        receiver.refused++;
        return new Response("down for maintenance", { status: 503 });
      }
      const rows = lines.split("\n").filter(Boolean).map((line) => JSON.parse(line) as SinkRow);
      const batch = { path, webhookId: request.headers.get("webhook-id")!, rows };
      receiver.accepted.push(batch);
      for (const resolve of waiting.splice(0)) resolve(batch);
      await receiver.hold;
      return new Response("ok");
    },
  });
  receiver.url = `http://127.0.0.1:${server.port}`;
  return receiver;
}
