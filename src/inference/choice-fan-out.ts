import { badRequest, type GatewayError } from "../http/errors";
import type { ChatChunk, ChatResponse, Usage } from "./canonical";
import { withStreamUsage } from "./formats/openai/stream-usage";
import { FORMATS } from "./formats/registry";
import type { Operation, WireFormat } from "../upstream/operations";
import type { UpstreamSuccess } from "../upstream/adapter";
import { jsonReply, replyJson } from "./providers/media-replies";
import { summedUsage } from "./summed-usage";

/**
 * OpenAI's `n` asks a chat for several choices; Anthropic's, Bedrock's and Cohere's APIs answer
 * one a call. Such a request is made `n` times, each asking for one, and their answers become
 * the choices of one OpenAI reply, with the tokens of them all.
 */

/** OpenAI's API takes at most this many choices a chat. */
const MOST_CHOICES = 128;

interface ChoicesRequest {
  operation: Operation;
  format: WireFormat;
  stream: boolean;
  body: Record<string, unknown>;
}

/** How many calls a chat to an upstream of `upstreamFormat` takes: the client's `n` where that format answers one choice a call, else 1. */
export function callsForChoices(request: ChoicesRequest, upstreamFormat: WireFormat): number | GatewayError {
  const { n } = request.body;
  if (request.operation !== "chat" || request.format !== "openai" || typeof n !== "number" || n <= 1 || !FORMATS[upstreamFormat]?.chat?.answersOneChoice) return 1;
  if (!Number.isInteger(n) || n > MOST_CHOICES) return badRequest(`n must be an integer from 1 to ${MOST_CHOICES}`, "n");
  return n;
}

/** The request as each of its calls makes it: asking for one choice. */
export function oneChoiceEach<Request extends { body: Record<string, unknown> }>(request: Request): Request {
  const { n: _n, ...body } = request.body;
  return { ...request, body };
}

/**
 * The replies of the calls, each in `format`, as one OpenAI chat completion: each call's choice in
 * call order, the usage of all. `model` names it where the format does not (Bedrock's).
 */
export async function joinedChoices(format: WireFormat, replies: readonly UpstreamSuccess[], model: string): Promise<UpstreamSuccess> {
  const codec = FORMATS[format]!.chat!;
  const responses = await Promise.all(replies.map(async (reply) => codec.decodeResponse(await replyJson(reply))));
  const usages = responses.flatMap((response) => (response.usage ? [response.usage] : []));
  const joined: ChatResponse = {
    ...responses[0]!,
    model: responses[0]!.model || model,
    choices: responses.flatMap((response) => response.choices.slice(0, 1)).map((choice, index) => ({ ...choice, index })),
    ...(usages.length > 0 ? { usage: summedUsage(usages) } : {}),
  };
  return jsonReply(replies[0]!, FORMATS.openai!.chat!.encodeResponse(joined));
}

/** A reply's bytes as a stream, whichever way they arrived. */
const streamOf = (reply: UpstreamSuccess) => ("stream" in reply ? reply.stream : new Response(reply.body).body!);

/**
 * The streams of the calls, each in `format`, as one OpenAI stream: every call's chunks as its
 * own choice's, interleaved as they arrive under one id, and the usage of them all before the
 * end (taken back out for a client that did not ask for it, as from any OpenAI stream).
 * `model` names it where the format does not.
 */
export function joinedChoiceStreams(format: WireFormat, replies: readonly UpstreamSuccess[], model: string): UpstreamSuccess {
  const codec = FORMATS[format]!.chat!;
  const readers = replies.map((reply) => streamOf(reply).pipeThrough(codec.decodeStream()).getReader());
  const cancelAll = async (reason: unknown) => void (await Promise.allSettled(readers.map((reader) => reader.cancel(reason))));
  const usages: Usage[] = [];
  let identity: Pick<ChatChunk, "id" | "created" | "model"> | undefined;
  const chunks = new ReadableStream<ChatChunk>({
    async start(controller) {
      const relayed = readers.map(async (reader, index) => {
        for (let next = await reader.read(); !next.done; next = await reader.read()) {
          const { usage, ...chunk } = next.value;
          if (usage) usages.push(usage);
          identity ??= { id: chunk.id, created: chunk.created, model: chunk.model || model };
          if (chunk.choices.length > 0) controller.enqueue({ ...chunk, ...identity, choices: chunk.choices.map((choice) => ({ ...choice, index })) });
        }
      });
      try {
        await Promise.all(relayed);
      } catch (error) {
        // One cut stream cuts the answer: the others are not read on for nothing.
        await cancelAll(error);
        return controller.error(error);
      }
      if (identity && usages.length > 0) controller.enqueue({ ...identity, object: "chat.completion.chunk", choices: [], usage: summedUsage(usages) });
      controller.close();
    },
    cancel: cancelAll,
  });
  const openAI = FORMATS.openai!;
  return {
    ok: true,
    status: replies[0]!.status,
    headers: new Headers({ "content-type": openAI.streamContentType }),
    stream: chunks.pipeThrough(openAI.chat!.encodeStream(withStreamUsage({}))),
  };
}
