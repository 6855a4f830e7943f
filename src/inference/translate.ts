import { badRequest } from "../http/errors";
import type { TranslatableOperation } from "./canonical";
import { FORMATS } from "./formats/registry";
import type { Operation, WireFormat } from "./operations";

function codecsFor<O extends TranslatableOperation>(operation: O, from: WireFormat, to: WireFormat) {
  const source = FORMATS[from]?.[operation];
  const target = FORMATS[to]?.[operation];
  if (!source || !target) throw untranslatable(operation, from, to);
  return { source, target };
}

const untranslatable = (operation: Operation, from: WireFormat, to: WireFormat) =>
  badRequest(`a ${from}-format ${operation} request cannot be sent to a ${to}-format provider`, "model", "caller_unsupported_translation");

/** The client's body written in the upstream's format; the same object when both speak one format. */
export function translateRequest(operation: Operation, from: WireFormat, to: WireFormat, body: Record<string, unknown>, stream: boolean): Record<string, unknown> {
  if (from === to) return body;
  if (operation === "chat") {
    const { source, target } = codecsFor("chat", from, to);
    return target.encodeRequest({ ...source.decodeRequest(body), stream });
  }
  if (operation === "embedding") {
    const { source, target } = codecsFor("embedding", from, to);
    return target.encodeRequest(source.decodeRequest(body));
  }
  throw untranslatable(operation, from, to);
}

/** An upstream's JSON reply written in the client's format. */
export function translateResponse(operation: Operation, from: WireFormat, to: WireFormat, text: string): string {
  if (from === to) return text;
  if (operation === "chat") {
    const { source, target } = codecsFor("chat", from, to);
    return JSON.stringify(target.encodeResponse(source.decodeResponse(JSON.parse(text))));
  }
  if (operation === "embedding") {
    const { source, target } = codecsFor("embedding", from, to);
    return JSON.stringify(target.encodeResponse(source.decodeResponse(JSON.parse(text))));
  }
  throw untranslatable(operation, from, to);
}

/** An upstream's stream re-encoded event by event in the client's format. */
export function translateStream(from: WireFormat, to: WireFormat, stream: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  if (from === to) return stream;
  const { source, target } = codecsFor("chat", from, to);
  return stream.pipeThrough(source.decodeStream()).pipeThrough(target.encodeStream());
}
