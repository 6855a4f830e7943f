import { badRequest } from "../../http/errors";
import { FORMATS } from "../formats/registry";
import type { WireFormat } from "../../upstream/operations";
import type { UpstreamTarget } from "../../upstream/adapter";

/** One request of an OpenAI batch: an input file line, or an entry of `requests`. */
export interface BatchLine {
  custom_id: string;
  method?: string;
  url?: string;
  body: Record<string, unknown>;
}

/** OpenAI's batch input format: one JSON request per line. */
export function parseBatchLines(text: string, param: string): BatchLine[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, index) => {
      let parsed: Partial<BatchLine>;
      try {
        parsed = JSON.parse(line) as Partial<BatchLine>;
      } catch {
        throw badRequest(`line ${index + 1} of the batch input is not JSON`, param);
      }
      if (typeof parsed.custom_id !== "string" || !parsed.body || typeof parsed.body !== "object") throw badRequest(`line ${index + 1} of the batch input needs custom_id and body`, param);
      return parsed as BatchLine;
    });
}

/** The model a line asks for, in the provider's naming: `provider/` dropped, the key's aliases applied. */
export function lineModel(line: BatchLine, target: UpstreamTarget, provider: string): string {
  const raw = typeof line.body.model === "string" && line.body.model ? line.body.model : target.model;
  const model = raw.startsWith(`${provider}/`) ? raw.slice(provider.length + 1) : raw;
  return target.key?.config.aliases?.[model] ?? model;
}

/** A line's chat request (written in OpenAI's format) in the provider's format. */
export function chatRequestIn(format: WireFormat, body: Record<string, unknown>, model: string): Record<string, unknown> {
  const request = FORMATS.openai!.chat!.decodeRequest({ ...body, model });
  return FORMATS[format]!.chat!.encodeRequest({ ...request, stream: false });
}

/** A provider's chat reply as OpenAI's chat completion. */
export function chatReplyFrom(format: WireFormat, reply: unknown, model: string): unknown {
  const response = FORMATS[format]!.chat!.decodeResponse(reply);
  return FORMATS.openai!.chat!.encodeResponse({ ...response, model: response.model || model });
}

export type LineOutcome = { body: unknown; statusCode?: number } | { error: { code: string; message: string } };

/** A line of OpenAI's batch output format. */
export function outputLine(index: number, customId: string, outcome: LineOutcome): string {
  const line =
    "error" in outcome
      ? { id: `batch_req_${index}`, custom_id: customId, response: null, error: outcome.error }
      : { id: `batch_req_${index}`, custom_id: customId, response: { status_code: outcome.statusCode ?? 200, request_id: `req_${index}`, body: outcome.body }, error: null };
  return JSON.stringify(line);
}

/** A JSON body in OpenAI's shape, as a backend answers a call it mapped. */
export const jsonAnswer = (body: unknown) => ({ ok: true as const, status: 200, headers: new Headers({ "content-type": "application/json" }), body: JSON.stringify(body) });

/** Output lines as the JSONL body a results call answers with. */
export function jsonlReply(lines: string[]) {
  return { ok: true as const, status: 200, headers: new Headers({ "content-type": "application/jsonl" }), body: lines.length ? `${lines.join("\n")}\n` : "" };
}

/** Seconds since the epoch of an RFC 3339 time, as OpenAI's objects count time; null stays null. */
export const epochSeconds = (time: string | null | undefined) => (time ? Math.floor(Date.parse(time) / 1000) : null);
