import type { Clock } from "../../actors/runtime/clock";
import type { HttpLogSink } from "../config/sections/log-sinks";
import { guardedFetch } from "../outbound/guarded-fetch";
import type { OutboundPolicy } from "../outbound/host-check";
import { withDeadline } from "../webhooks/deadline";
import { signDelivery } from "../webhooks/signing";
import type { Batch, SinkTarget } from "./targets";

const USER_AGENT = "gateway-log-sinks/1";
const EXCERPT_CHARS = 200;
const DEFAULT_TIMEOUT_SECONDS = 30;

/** What a receiver answered, short: the status and the start of its body. */
async function refusalOf(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  const excerpt = text.slice(0, EXCERPT_CHARS).trim();
  return `the sink answered ${response.status}${excerpt ? `: ${excerpt}` : ""}`;
}

/**
 * POSTs each batch as gzip JSON lines, signed the Standard Webhooks way (the signature covers the
 * JSON lines, the body once its gzip `content-encoding` is undone); any answer but a 2xx, or none
 * within the timeout, fails the batch. An address a user gave goes under the outbound `policy`;
 * the configuration file's is fetched as written.
 */
export function httpTarget(sink: HttpLogSink, clock: Clock, resolve: (value: string) => string, policy?: OutboundPolicy): SinkTarget & { secrets: string[] } {
  const secret = resolve(sink.secret);
  const extra = Object.entries(sink.headers ?? {}).map(([name, value]): [string, string] => [name, resolve(value)]);
  const timeoutMs = (sink.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
  const url = new URL(sink.url);
  return {
    secrets: [secret, ...extra.map(([, value]) => value), url.password, url.search.slice(1)].filter((value) => value !== ""),
    async send(batch: Batch, signal: AbortSignal) {
      const timestamp = Math.floor(clock.now() / 1000);
      const headers = new Headers(extra);
      headers.set("user-agent", USER_AGENT);
      headers.set("content-type", "application/x-ndjson");
      headers.set("content-encoding", "gzip");
      headers.set("webhook-id", batch.id);
      headers.set("webhook-timestamp", String(timestamp));
      headers.set("webhook-signature", signDelivery(secret, batch.id, timestamp, batch.lines));
      const body = Bun.gzipSync(Buffer.from(batch.lines));
      const response = await withDeadline(clock, timeoutMs, signal, (bounded) => {
        const init: RequestInit = { method: "POST", headers, body, signal: bounded, redirect: "manual" };
        return policy ? guardedFetch(url, init, policy) : fetch(url, init);
      });
      if (response.status < 200 || response.status >= 300) throw new Error(await refusalOf(response));
      await response.body?.cancel().catch(() => undefined);
    },
  };
}
