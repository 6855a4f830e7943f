import { EventSourceParserStream } from "eventsource-parser/stream";
import { queryString } from "../../api/client";
import { logs } from "../../api/endpoints";
import type { GatewayErrorBody, LogSummary } from "../../api/types";
import type { ChatBody } from "./types";

export interface ToolCall {
  name: string;
  arguments: string;
}

/** One model's answer as it arrives, then its log row's figures. */
export interface Answer {
  text: string;
  toolCalls: ToolCall[];
  finishReason?: string;
  error?: string;
  /** The request log row the gateway made for the run. */
  requestId?: string;
  log?: LogSummary;
  done: boolean;
}

type ChoiceDelta = { content?: string | null; tool_calls?: Array<{ index: number; function?: { name?: string; arguments?: string } }> };
type Chunk = { choices?: Array<{ delta?: ChoiceDelta; message?: ChoiceDelta; finish_reason?: string | null }>; error?: { message?: string } };

function addChunk(answer: Answer, chunk: Chunk): Answer {
  if (chunk.error) return { ...answer, error: chunk.error.message ?? "the stream ended with an error" };
  const choice = chunk.choices?.[0];
  const part = choice?.delta ?? choice?.message;
  if (!choice || !part) return answer;
  const toolCalls = [...answer.toolCalls];
  part.tool_calls?.forEach((call, position) => {
    const index = call.index ?? position;
    const current = toolCalls[index] ?? { name: "", arguments: "" };
    toolCalls[index] = { name: current.name + (call.function?.name ?? ""), arguments: current.arguments + (call.function?.arguments ?? "") };
  });
  return { ...answer, text: answer.text + (part.content ?? ""), toolCalls, finishReason: choice.finish_reason ?? answer.finishReason };
}

async function failure(response: Response): Promise<string> {
  const body = (await response.json().catch(() => undefined)) as GatewayErrorBody | undefined;
  return body?.error?.message ?? `${response.status} ${response.statusText}`;
}

async function readStream(response: Response, answer: Answer, show: (answer: Answer) => void): Promise<Answer> {
  const events = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const event of events as unknown as AsyncIterable<{ data: string }>) {
    if (event.data === "[DONE]") break;
    answer = addChunk(answer, JSON.parse(event.data) as Chunk);
    show(answer);
  }
  return answer;
}

/** The run's log row, read once the gateway has written it (it is written as the reply ends, a moment later). */
async function loggedRow(id: string, signal: AbortSignal): Promise<LogSummary | undefined> {
  for (let attempt = 1; attempt <= 20 && !signal.aborted; attempt++) {
    // A role without Logs:View reads no figures: the first refusal ends the wait.
    const page = await logs.list({ request_id: id }, signal).catch(() => undefined);
    if (!page) return undefined;
    if (page.logs[0]) return page.logs[0];
    await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
  }
  return undefined;
}

/**
 * Sends one chat completion through the playground route, as `virtualKeyId` when one is chosen,
 * and reports the answer as it grows; the log row's figures come last. The body may name a stored
 * prompt in its `prompt` field instead of carrying all its messages (the Prompts page's runs).
 */
export async function runChat(body: ChatBody | Record<string, unknown>, virtualKeyId: string, signal: AbortSignal, show: (answer: Answer) => void): Promise<void> {
  let answer: Answer = { text: "", toolCalls: [], done: false };
  try {
    const response = await fetch(`/api/playground/chat/completions${queryString({ virtual_key_id: virtualKeyId })}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
      signal,
    });
    answer = { ...answer, requestId: response.headers.get("x-gw-request-id") ?? undefined };
    if (!response.ok) answer = { ...answer, error: await failure(response) };
    else if (response.headers.get("content-type")?.includes("text/event-stream")) answer = await readStream(response, answer, show);
    else answer = addChunk(answer, (await response.json()) as Chunk);
  } catch (error) {
    answer = { ...answer, error: signal.aborted ? "stopped" : (error as Error).message };
  }
  show(answer);
  const log = answer.requestId ? await loggedRow(answer.requestId, signal) : undefined;
  show({ ...answer, log, done: true });
}
