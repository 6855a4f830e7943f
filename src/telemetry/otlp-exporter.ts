import { encodeTraceExport, type OtlpProtocol, type SpanRecord } from "./otlp-encoding";

export interface OtlpExporterOptions {
  /** The collector's base URL or its full `/v1/traces` URL. */
  endpoint: string;
  headers: Record<string, string>;
  serviceName: string;
  protocol?: OtlpProtocol;
  flushIntervalMs?: number;
  /** Waits before each new attempt at a batch the collector did not take (default 0.5, 1, 2, 4 s), then it is dropped. */
  retryDelaysMs?: readonly number[];
}

const MAX_QUEUED = 2048;
const BATCH_SIZE = 256;
const RETRY_DELAYS_MS = [500, 1000, 2000, 4000];
/** Answers OTLP/HTTP says to retry (throttled, or the collector briefly unavailable); any other failure is final. */
const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);

/** Why spans never reached the collector. */
export interface ExportDrops {
  /** The queue was full (the collector slower than the traffic, or down). */
  queueFull: number;
  /** The collector refused the batch, or did not take it after every retry. */
  failed: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref?.());

/**
 * Exports spans with OTLP/HTTP (protobuf by default, or JSON): queued without waiting, sent
 * every `flushIntervalMs` or as soon as a batch is full, one batch at a time; a batch the
 * collector throttles or cannot take yet is retried with growing waits while new spans queue
 * behind it, and a full queue drops new spans. Both losses are counted (`drops`).
 */
export class OtlpTraceExporter {
  private queue: SpanRecord[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private sending: Promise<void> = Promise.resolve();
  private readonly url: string;
  readonly drops: ExportDrops = { queueFull: 0, failed: 0 };

  constructor(private readonly options: OtlpExporterOptions) {
    const endpoint = options.endpoint.replace(/\/+$/, "");
    this.url = endpoint.endsWith("/v1/traces") ? endpoint : `${endpoint}/v1/traces`;
  }

  export(span: SpanRecord): void {
    if (this.queue.length >= MAX_QUEUED) {
      this.drops.queueFull++;
      return;
    }
    this.queue.push(span);
    if (this.queue.length >= BATCH_SIZE) this.drain();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.drain(), this.options.flushIntervalMs ?? 1000);
      // The timer must not keep a stopping process alive: the owner flush()es what is left.
      this.timer.unref?.();
    }
  }

  /** Sends everything queued; resolves when the collector has answered. */
  async flush(): Promise<void> {
    this.drain();
    await this.sending;
  }

  private drain(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, BATCH_SIZE);
      this.sending = this.sending.then(() => this.send(batch));
    }
  }

  private async send(batch: SpanRecord[]): Promise<void> {
    const { body, contentType } = await encodeTraceExport(batch, this.options.serviceName, this.options.protocol ?? "http/protobuf");
    const delays = this.options.retryDelaysMs ?? RETRY_DELAYS_MS;
    for (let attempt = 0; ; attempt++) {
      const problem = await this.post(body, contentType);
      if (problem === undefined) return;
      if (!problem.retryable || attempt >= delays.length) {
        this.drops.failed += batch.length;
        console.error(`otlp: ${batch.length} spans dropped: ${problem.reason}`);
        return;
      }
      await pause(delays[attempt]!);
    }
  }

  /** One POST: undefined once the collector took the batch, else why not and whether to try again. */
  private async post(body: string | Uint8Array, contentType: string): Promise<{ reason: string; retryable: boolean } | undefined> {
    try {
      const response = await fetch(this.url, { method: "POST", headers: { ...this.options.headers, "content-type": contentType }, body });
      await response.arrayBuffer();
      if (response.ok) return undefined;
      return { reason: `the collector answered ${response.status}`, retryable: RETRYABLE_STATUS.has(response.status) };
    } catch (error) {
      return { reason: (error as Error).message, retryable: true };
    }
  }
}
