import { exportTraceServiceRequest } from "../../src/telemetry/otlp-proto";

export type OtlpAttribute = { key: string; value: Record<string, unknown> };
export type OtlpEvent = { name: string; timeUnixNano: string; attributes: OtlpAttribute[] };
export type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpAttribute[];
  events?: OtlpEvent[];
  status: { code?: number; message?: string };
};
export type OtlpExport = { resourceSpans: Array<{ resource: { attributes: OtlpAttribute[] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }> };

export interface ReceivedExport {
  path: string;
  authorization: string | null;
  contentType: string | null;
  body: OtlpExport;
}

const hexOf = (base64: string | undefined) => (base64 ? Buffer.from(base64, "base64").toString("hex") : undefined);

/** A protobuf ExportTraceServiceRequest, decoded by the official OTLP definitions, in the JSON encoding's shape (ids in hex). */
async function decodeProtobuf(bytes: Uint8Array): Promise<OtlpExport> {
  const type = await exportTraceServiceRequest();
  const decoded = type.toObject(type.decode(bytes), { longs: String, bytes: String, enums: Number, defaults: false, arrays: true }) as OtlpExport;
  for (const resource of decoded.resourceSpans)
    for (const scope of resource.scopeSpans)
      for (const span of scope.spans) {
        span.traceId = hexOf(span.traceId)!;
        span.spanId = hexOf(span.spanId)!;
        span.parentSpanId = hexOf(span.parentSpanId);
        if (!span.parentSpanId) delete span.parentSpanId;
        span.status ??= {};
      }
  return decoded;
}

/**
 * An OTLP/HTTP trace receiver: takes `application/x-protobuf` and `application/json` exports,
 * keeps them decoded, and answers with `answer` (200 by default; a test sets 503 for an outage).
 */
export function startOtlpReceiver() {
  const received: ReceivedExport[] = [];
  const state = { status: 200, refused: 0 };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const contentType = request.headers.get("content-type");
      if (state.status !== 200) {
        state.refused++;
        return new Response("unavailable", { status: state.status });
      }
      const body = contentType === "application/x-protobuf" ? await decodeProtobuf(new Uint8Array(await request.arrayBuffer())) : ((await request.json()) as OtlpExport);
      received.push({ path: new URL(request.url).pathname, authorization: request.headers.get("authorization"), contentType, body });
      return Response.json({ partialSuccess: {} });
    },
  });
  return {
    received,
    state,
    url: `http://127.0.0.1:${server.port}`,
    spans: () => received.flatMap((entry) => entry.body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans))),
    stop: () => server.stop(true),
  };
}
export type OtlpReceiver = ReturnType<typeof startOtlpReceiver>;
