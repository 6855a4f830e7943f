const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-([\da-f]{16})-[\da-f]{2}$/;

export const randomHex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");

export const nanos = (milliseconds: number) => BigInt(Math.round(milliseconds * 1_000_000));

/** Where a request's span sits: in the client's trace (W3C `traceparent`), or at the root of a new one. */
export interface SpanPlace {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
}

export function spanPlaceFor(headers: Headers): SpanPlace {
  const spanId = randomHex(8);
  const match = TRACEPARENT.exec(headers.get("traceparent")?.trim().toLowerCase() ?? "");
  if (match && !/^0+$/.test(match[1]!) && !/^0+$/.test(match[2]!)) return { traceId: match[1]!, spanId, parentSpanId: match[2]! };
  return { traceId: randomHex(16), spanId };
}
