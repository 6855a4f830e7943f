import { expect } from "bun:test";
import type { TestGateway } from "../support/gateway";

/** One SSE event as a raw client reads it. */
export interface ReadEvent {
  id?: number;
  event?: string;
  data: string;
}

/** Reads SSE events off a response body, one at a time, as a browser's EventSource would. */
export class SseReader {
  private readonly reader: { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> };
  private readonly decoder = new TextDecoder();
  private buffered = "";

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader();
  }

  /** The next event; undefined once the stream ended. */
  async next(): Promise<ReadEvent | undefined> {
    for (;;) {
      const end = this.buffered.indexOf("\n\n");
      if (end >= 0) {
        const block = this.buffered.slice(0, end);
        this.buffered = this.buffered.slice(end + 2);
        return parseEvent(block);
      }
      const { done, value } = await this.reader.read();
      if (done) return undefined;
      this.buffered += this.decoder.decode(value, { stream: true });
    }
  }

  async take(count: number): Promise<ReadEvent[]> {
    const events: ReadEvent[] = [];
    while (events.length < count) {
      const event = await this.next();
      if (!event) break;
      events.push(event);
    }
    return events;
  }

  async rest(): Promise<ReadEvent[]> {
    return this.take(Number.POSITIVE_INFINITY);
  }

  cancel(): Promise<void> {
    return this.reader.cancel();
  }
}

function parseEvent(block: string): ReadEvent {
  const event: ReadEvent = { data: "" };
  const data: string[] = [];
  for (const line of block.split("\n")) {
    const colon = line.indexOf(":");
    const field = line.slice(0, colon);
    const value = line.slice(colon + 1).replace(/^ /, "");
    if (field === "id") event.id = Number(value);
    else if (field === "event") event.event = value;
    else if (field === "data") data.push(value);
  }
  event.data = data.join("\n");
  return event;
}

/** The text a chat completion chunk adds (empty for the role chunk, the finish, `[DONE]`). */
export const contentOf = (event: ReadEvent): string => {
  if (event.data === "[DONE]") return "";
  const chunk = JSON.parse(event.data) as { choices?: Array<{ delta?: { content?: string } }> };
  return chunk.choices?.[0]?.delta?.content ?? "";
};

/** A prompt the mock echoes as 20 chunks: the role, "echo: " and each of its 17 words, the finish. */
export const TWENTY_CHUNKS = Array.from({ length: 17 }, (_, index) => `w${index + 1}`).join(" ");

export function resumableChat(gw: TestGateway, vk: string, body: Record<string, unknown> = {}, init: { signal?: AbortSignal; headers?: Record<string, string> } = {}) {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-gw-vk": vk, "x-gw-resumable": "true", ...init.headers },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: TWENTY_CHUNKS }], stream: true, ...body }),
    signal: init.signal,
  });
}

export function resume(gw: TestGateway, vk: string, id: string, query = "", headers: Record<string, string> = {}) {
  return fetch(`${gw.url}/v1/streams/${id}${query}`, { headers: { "x-gw-vk": vk, ...headers } });
}

/** The events a reader got have the ids from `first` on, each once, in order. */
export function expectIdsFrom(events: ReadEvent[], first: number, last: number): void {
  expect(events.map((event) => event.id)).toEqual(Array.from({ length: last - first + 1 }, (_, index) => first + index));
}

export interface Charged {
  cost: number;
  tokens: number;
  requests: number;
}

/** What a virtual key was charged: its budget's spend and its rate limit's tokens and requests. */
export async function chargedTo(gw: TestGateway, keyId: string): Promise<Charged> {
  const { budgets } = (await (await gw.admin("/api/governance/budgets")).json()) as { budgets: Array<{ owner_id: string; current_usage: number }> };
  const { rate_limits } = (await (await gw.admin("/api/governance/rate-limits")).json()) as { rate_limits: Array<{ owner_id: string; token_current_usage: number; request_current_usage: number }> };
  const limits = rate_limits.find((row) => row.owner_id === keyId)!;
  return { cost: budgets.find((row) => row.owner_id === keyId)!.current_usage, tokens: limits.token_current_usage, requests: limits.request_current_usage };
}

export const METERED = {
  budgets: [{ max_limit: 100, reset_duration: "1d" }],
  rate_limit: { token_max_limit: 100_000, token_reset_duration: "1d", request_max_limit: 100, request_reset_duration: "1d" },
};
