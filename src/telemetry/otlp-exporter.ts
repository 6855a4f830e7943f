export type AttributeValue = string | number | boolean;

export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, AttributeValue | undefined>;
  /** Set on failure: the span's status becomes ERROR with this message. */
  error?: string;
}

export interface OtlpExporterOptions {
  /** The collector's base URL or its full `/v1/traces` URL. */
  endpoint: string;
  headers: Record<string, string>;
  serviceName: string;
  flushIntervalMs?: number;
}

const MAX_QUEUED = 2048;
const BATCH_SIZE = 256;
const SPAN_KIND_SERVER = 2;
const STATUS_CODE_ERROR = 2;

function encodeAttribute(key: string, value: AttributeValue) {
  if (typeof value === "string") return { key, value: { stringValue: value } };
  if (typeof value === "boolean") return { key, value: { boolValue: value } };
  return { key, value: Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value } };
}

const encodeAttributes = (attributes: Record<string, AttributeValue | undefined>) =>
  Object.entries(attributes).flatMap(([key, value]) => (value === undefined ? [] : [encodeAttribute(key, value)]));

function encodeSpan(span: SpanRecord) {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
    name: span.name,
    kind: SPAN_KIND_SERVER,
    startTimeUnixNano: span.startTimeUnixNano.toString(),
    endTimeUnixNano: span.endTimeUnixNano.toString(),
    attributes: encodeAttributes(span.attributes),
    status: span.error === undefined ? {} : { code: STATUS_CODE_ERROR, message: span.error },
  };
}

/**
 * Exports spans with OTLP/HTTP in its JSON encoding (one POST per batch, no SDK): queued
 * without waiting, sent every `flushIntervalMs` or as soon as a batch is full; a full queue
 * drops new spans and counts them.
 */
export class OtlpTraceExporter {
  private queue: SpanRecord[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private sending: Promise<void> = Promise.resolve();
  private readonly url: string;
  dropped = 0;

  constructor(private readonly options: OtlpExporterOptions) {
    const endpoint = options.endpoint.replace(/\/+$/, "");
    this.url = endpoint.endsWith("/v1/traces") ? endpoint : `${endpoint}/v1/traces`;
  }

  export(span: SpanRecord): void {
    if (this.queue.length >= MAX_QUEUED) {
      this.dropped++;
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
    const body = {
      resourceSpans: [
        {
          resource: { attributes: encodeAttributes({ "service.name": this.options.serviceName }) },
          scopeSpans: [{ scope: { name: "gateway" }, spans: batch.map(encodeSpan) }],
        },
      ],
    };
    try {
      const response = await fetch(this.url, { method: "POST", headers: { ...this.options.headers, "content-type": "application/json" }, body: JSON.stringify(body) });
      if (!response.ok) console.error(`otlp: the collector answered ${response.status} to ${batch.length} spans`);
    } catch (error) {
      console.error(`otlp: ${batch.length} spans could not be exported:`, (error as Error).message);
    }
  }
}
