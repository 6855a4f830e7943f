/**
 * streamGenerateContent with `alt=sse`: every event is one whole GenerateContentResponse
 * carrying the next parts; the last carries the finish reason and the usage.
 */
import { encodeSSE } from "../../../http/sse";
import { type SseChunkDecoder, sseChunkStream } from "../sse-chunks";
import type { ChatChunk, Usage } from "../../canonical";
import { signatureExtra } from "./contents";
import { finishReasonOf, genaiFinishReason, newCallId, usageMetadataOf, usageOf } from "./response";
import type { Candidate, GenerateContentResponse, Part } from "./schemas";
import type { GatewayError } from "../../../http/errors";
import { upstreamStreamFailed } from "../../../upstream/errors";

type ChunkChoice = ChatChunk["choices"][number];
type Delta = ChunkChoice["delta"];

/** What one choice of an upstream Gemini stream has shown so far. */
interface ChoiceProgress {
  toolCalls: number;
}

function deltaOf(parts: Part[], progress: ChoiceProgress): Delta {
  const delta: Delta = {};
  for (const part of parts) {
    if (part.functionCall) {
      const call = {
        index: progress.toolCalls++,
        id: part.functionCall.id ?? newCallId(),
        type: "function" as const,
        function: { name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}) },
        ...signatureExtra(part),
      };
      delta.tool_calls = [...(delta.tool_calls ?? []), call];
    } else if (part.thought) {
      if (part.text) delta.reasoning_content = (delta.reasoning_content ?? "") + part.text;
      if (part.thoughtSignature) delta.thinking_blocks = [...(delta.thinking_blocks ?? []), { type: "thinking", thinking: "", signature: part.thoughtSignature }];
    } else if (part.text) {
      delta.content = (delta.content ?? "") + part.text;
    }
  }
  return delta;
}

/** Upstream Gemini events as canonical chunks; the usage of the last event follows as a chunk of its own. */
export function genaiSseDecoder(): SseChunkDecoder {
  const progress = new Map<number, ChoiceProgress>();
  const head = { id: "", object: "chat.completion.chunk" as const, created: Math.floor(Date.now() / 1000), model: "" };
  let usage: Usage | undefined;
  return {
    event(message) {
      const response = JSON.parse(message.data) as GenerateContentResponse & { error?: { message?: string } };
      if (response.error) throw upstreamStreamFailed(response.error.message ?? "the upstream stream reported an error");
      head.id ||= response.responseId ?? `genai-${crypto.randomUUID()}`;
      head.model = response.modelVersion ?? head.model;
      const choices = (response.candidates ?? []).map((candidate, position): ChunkChoice => {
        const index = candidate.index ?? position;
        const seen = progress.get(index);
        const choice = seen ?? { toolCalls: 0 };
        progress.set(index, choice);
        const delta = { ...(seen ? {} : { role: "assistant" as const }), ...deltaOf(candidate.content?.parts ?? [], choice) };
        return { index, delta, finish_reason: finishReasonOf(candidate.finishReason, choice.toolCalls > 0) };
      });
      if (response.usageMetadata) usage = usageOf(response.usageMetadata);
      return choices.length > 0 ? [{ ...head, choices }] : [];
    },
    end: () => (usage ? [{ ...head, choices: [], usage }] : []),
  };
}

export const decodeGenaiStream = () => sseChunkStream(genaiSseDecoder());

type PendingCall = { id?: string; name: string; arguments: string };

/** Canonical deltas as Gemini parts; tool calls wait for their last argument fragment, as Gemini sends them whole. */
class CandidateEncoder {
  private readonly calls = new Map<number, Map<number, PendingCall>>();

  candidateOf(choice: ChunkChoice): Candidate | undefined {
    const { delta } = choice;
    const parts: Part[] = [];
    if (delta.reasoning_content) parts.push({ text: delta.reasoning_content, thought: true });
    for (const block of delta.thinking_blocks ?? []) {
      if (block.type === "thinking") parts.push({ text: block.thinking, thought: true, ...(block.signature ? { thoughtSignature: block.signature } : {}) });
    }
    if (delta.content) parts.push({ text: delta.content });
    this.collect(choice.index, delta.tool_calls ?? []);
    if (choice.finish_reason) parts.push(...this.release(choice.index));
    const finishReason = genaiFinishReason(choice.finish_reason);
    if (parts.length === 0 && !finishReason) return undefined;
    return { content: { role: "model", parts }, index: choice.index, ...(finishReason ? { finishReason } : {}) };
  }

  /** Calls of a stream that ended without a finish reason. */
  leftovers(): Candidate[] {
    return [...this.calls.keys()].map((index) => ({ content: { role: "model", parts: this.release(index) }, index }));
  }

  private collect(choice: number, fragments: NonNullable<Delta["tool_calls"]>) {
    const pending = this.calls.get(choice) ?? new Map<number, PendingCall>();
    for (const fragment of fragments) {
      const call = pending.get(fragment.index) ?? { name: "", arguments: "" };
      call.id ??= fragment.id;
      call.name += fragment.function?.name ?? "";
      call.arguments += fragment.function?.arguments ?? "";
      pending.set(fragment.index, call);
    }
    if (pending.size > 0) this.calls.set(choice, pending);
  }

  private release(choice: number): Part[] {
    const pending = [...(this.calls.get(choice)?.entries() ?? [])].sort(([a], [b]) => a - b);
    this.calls.delete(choice);
    return pending.map(([, call]) => ({ functionCall: { ...(call.id ? { id: call.id } : {}), name: call.name, args: call.arguments ? (JSON.parse(call.arguments) as Record<string, unknown>) : {} } }));
  }
}

/**
 * Canonical chunks as Gemini events. The event that finishes a candidate is held until the usage
 * arrives (OpenAI-style streams send it in a chunk after the finish), so both travel together.
 */
export function encodeGenaiStream(): ReadableWritablePair<Uint8Array, ChatChunk> {
  const encoder = new CandidateEncoder();
  let held: GenerateContentResponse | undefined;
  const merge = (event: GenerateContentResponse): GenerateContentResponse => (held ? { ...held, ...event, candidates: [...(held.candidates ?? []), ...(event.candidates ?? [])] } : event);
  return new TransformStream<ChatChunk, Uint8Array>({
    transform(chunk, controller) {
      const candidates = chunk.choices.flatMap((choice) => encoder.candidateOf(choice) ?? []);
      const event: GenerateContentResponse = { candidates, modelVersion: chunk.model, responseId: chunk.id };
      if (chunk.usage) {
        controller.enqueue(encodeSSE(merge({ ...event, usageMetadata: usageMetadataOf(chunk.usage) })));
        held = undefined;
      } else if (candidates.some((candidate) => candidate.finishReason)) {
        held = merge(event);
      } else if (candidates.length > 0) {
        controller.enqueue(encodeSSE(event));
      }
    },
    flush(controller) {
      const leftovers = encoder.leftovers();
      if (leftovers.length > 0) held = merge({ candidates: leftovers });
      if (held) controller.enqueue(encodeSSE(held));
    },
  });
}

/** Google's status names by HTTP status; others are `INTERNAL`. */
const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** Gemini ends a failing stream with an event holding its error body, which @google/genai raises as an ApiError. */
export const encodeGenaiStreamError = (error: GatewayError) =>
  encodeSSE({ error: { code: error.status, message: error.message, status: STATUS_NAMES[error.status] ?? "INTERNAL" } });
