import { GatewayError } from "../../http/errors";
import { encodeSSE } from "../../http/sse";
import { streamErrorEncoder } from "../../inference/translate";
import type { AnthropicRound } from "./anthropic-rounds";
import { sseEvents } from "./streaming-agent";

type Data = Record<string, unknown>;
type Block = Data & { type: string };

/** An event as Anthropic names and writes it. */
export interface AnthropicEvent {
  event: string;
  data: Data;
}

/** The client's side of a stream that spans rounds: whether it had its message_start, and its next content block index. */
export interface ClientMessage {
  started: boolean;
  nextIndex: number;
}

/** One streamed round: its assistant content, how it stopped, and its tool_use blocks and end, held back. */
export interface AnthropicStreamedRound {
  content: Block[];
  stopReason: unknown;
  /** Each held tool_use block's events, by its place in the round. */
  heldBlocks: Map<number, AnthropicEvent[]>;
  /** message_delta and message_stop. */
  end: AnthropicEvent[];
}

/** What a delta adds to the block it belongs to (the text, the thinking and its signature, a tool's input as JSON text). */
function grow(block: Block, delta: Data): void {
  if (delta.type === "text_delta") block.text = `${String(block.text ?? "")}${String(delta.text ?? "")}`;
  else if (delta.type === "thinking_delta") block.thinking = `${String(block.thinking ?? "")}${String(delta.thinking ?? "")}`;
  else if (delta.type === "signature_delta") block.signature = delta.signature;
  else if (delta.type === "citations_delta") block.citations = [...((block.citations as unknown[] | undefined) ?? []), delta.citation];
  else if (delta.type === "input_json_delta") block.partialJson = `${String(block.partialJson ?? "")}${String(delta.partial_json ?? "")}`;
}

/** The block as it goes back to the model: a tool's input parsed from the JSON text it streamed. */
function finished({ partialJson, ...block }: Block): Block {
  if (typeof partialJson !== "string") return block;
  try {
    return { ...block, input: JSON.parse(partialJson || "{}") as unknown };
  } catch {
    return block;
  }
}

/**
 * Relays one round of an Anthropic message stream: message_start once per client message, text
 * and thinking blocks at once under indices that follow the earlier rounds', while tool_use
 * blocks and the round's end are held until the round has ended, since calls the gateway answers
 * itself are not the client's to see.
 */
export async function relayAnthropicRound(stream: ReadableStream<Uint8Array>, send: (event: AnthropicEvent) => void, client: ClientMessage, signal: AbortSignal): Promise<AnthropicStreamedRound> {
  const round: AnthropicStreamedRound = { content: [], stopReason: null, heldBlocks: new Map(), end: [] };
  const blocks = new Map<number, { block: Block; clientIndex?: number }>();
  for await (const value of sseEvents(stream, signal)) {
    const data = JSON.parse(value.data) as Data;
    const event = value.event ?? String(data.type);
    const index = typeof data.index === "number" ? data.index : -1;
    if (event === "message_start") {
      if (!client.started) send({ event, data });
      client.started = true;
    } else if (event === "content_block_start") {
      const block = { ...(data.content_block as Block) };
      const held = block.type === "tool_use";
      blocks.set(index, { block, clientIndex: held ? undefined : client.nextIndex++ });
      round.content[index] = block;
      if (held) round.heldBlocks.set(index, [{ event, data }]);
      else send({ event, data: { ...data, index: blocks.get(index)!.clientIndex } });
    } else if (event === "content_block_delta" || event === "content_block_stop") {
      const entry = blocks.get(index);
      if (entry && event === "content_block_delta") grow(entry.block, data.delta as Data);
      if (entry?.clientIndex === undefined) round.heldBlocks.get(index)?.push({ event, data });
      else send({ event, data: { ...data, index: entry.clientIndex } });
    } else if (event === "message_delta" || event === "message_stop") {
      if (event === "message_delta") round.stopReason = (data.delta as Data | undefined)?.stop_reason;
      round.end.push({ event, data });
    } else send({ event, data });
  }
  round.content = round.content.filter(Boolean).map(finished);
  return round;
}

/** The held tool_use blocks and the round's end, for the client: the blocks under the client's next indices. */
export function releaseHeld(round: AnthropicStreamedRound, client: ClientMessage): AnthropicEvent[] {
  const blocks = [...round.heldBlocks.values()].flatMap((events) => {
    const index = client.nextIndex++;
    return events.map(({ event, data }) => ({ event, data: { ...data, index } }));
  });
  return [...blocks, ...round.end];
}

/** What a streamed Anthropic agent needs of the request: its calls to run, and the next round. */
export interface AnthropicStreamLoop {
  maxDepth: number;
  keepAliveMs: number;
  /** The round's calls when the gateway runs them all. */
  pending(content: Block[]): AnthropicRound | undefined;
  /** Runs the calls and asks the model again, streamed. */
  next(round: AnthropicRound): Promise<Response>;
  /** Called once the stream has ended, whatever the end. */
  close(): Promise<void>;
}

/** An SSE comment: clients skip it, proxies see the stream is alive. */
const KEEP_ALIVE = new TextEncoder().encode(": running tool calls\n\n");

const encodeError = streamErrorEncoder("chat", "anthropic")!;

/**
 * Tool search on an Anthropic stream: the client gets one message, each round's text and
 * thinking as it comes; a round whose calls the gateway runs (search_tools, auto-executable tools)
 * goes on in the same message with the next round, any other ends it with its tool_use blocks.
 */
export function anthropicAgentStream(response: Response, loop: AnthropicStreamLoop): Response {
  if (response.status !== 200 || !response.body) return response;
  const left = new AbortController();
  const stream = new ReadableStream<Uint8Array>({
    // Pulled once: the rounds run to the end, writing as they go.
    async pull(controller) {
      const write = (bytes: Uint8Array) => !left.signal.aborted && controller.enqueue(bytes);
      const send = ({ event, data }: AnthropicEvent) => write(encodeSSE(data, event));
      const client: ClientMessage = { started: false, nextIndex: 0 };
      let current = response;
      try {
        for (let depth = 0; ; depth++) {
          const round = await relayAnthropicRound(current.body!, send, client, left.signal);
          if (left.signal.aborted) break;
          const pending = depth < loop.maxDepth && round.stopReason === "tool_use" ? loop.pending(round.content) : undefined;
          if (!pending) {
            releaseHeld(round, client).forEach(send);
            break;
          }
          const keepAlive = setInterval(() => write(KEEP_ALIVE), loop.keepAliveMs);
          current = await loop.next(pending).finally(() => clearInterval(keepAlive));
          if (current.status !== 200 || !current.body) {
            send({ event: "error", data: (await current.json()) as Data });
            break;
          }
        }
      } catch (error) {
        if (!(error instanceof GatewayError)) console.error("MCP tool search: a streamed Anthropic round failed", error);
        write(encodeError(error instanceof GatewayError ? error : new GatewayError({ status: 502, errorType: "provider_stream_interrupted", message: "the agent's stream was interrupted" })));
      }
      await loop.close();
      if (!left.signal.aborted) controller.close();
    },
    cancel: () => {
      left.abort();
      void loop.close();
    },
  });
  return new Response(stream, { status: 200, headers: response.headers });
}
