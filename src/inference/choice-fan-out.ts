import { badRequest, type GatewayError } from "../http/errors";
import type { ChatResponse } from "./canonical";
import { FORMATS } from "./formats/registry";
import type { Operation, WireFormat } from "./operations";
import type { UpstreamSuccess } from "./providers/types";
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

/**
 * How many calls a chat to an upstream of `upstreamFormat` takes: the client's `n` where that
 * format answers one choice a call, else 1. Several choices are not streamed from such a format:
 * their events would have to be interleaved, choice by choice.
 */
export function callsForChoices(request: ChoicesRequest, upstreamFormat: WireFormat): number | GatewayError {
  const { n } = request.body;
  if (request.operation !== "chat" || request.format !== "openai" || typeof n !== "number" || n <= 1 || !FORMATS[upstreamFormat]?.chat?.answersOneChoice) return 1;
  if (!Number.isInteger(n) || n > MOST_CHOICES) return badRequest(`n must be an integer from 1 to ${MOST_CHOICES}`, "n");
  if (request.stream) return badRequest(`${upstreamFormat}-format models answer one choice a call, and several are not streamed: ask without stream, or with n: 1`, "n");
  return n;
}

/** The request as each of its calls makes it: asking for one choice. */
export function oneChoiceEach<Request extends { body: Record<string, unknown> }>(request: Request): Request {
  const { n: _n, ...body } = request.body;
  return { ...request, body };
}

/** The replies of the calls, each in `format`, as one OpenAI chat completion: each call's choice in call order, the usage of all. */
export async function joinedChoices(format: WireFormat, replies: readonly UpstreamSuccess[]): Promise<UpstreamSuccess> {
  const codec = FORMATS[format]!.chat!;
  const responses = await Promise.all(replies.map(async (reply) => codec.decodeResponse(await replyJson(reply))));
  const usages = responses.flatMap((response) => (response.usage ? [response.usage] : []));
  const joined: ChatResponse = {
    ...responses[0]!,
    choices: responses.flatMap((response) => response.choices.slice(0, 1)).map((choice, index) => ({ ...choice, index })),
    ...(usages.length > 0 ? { usage: summedUsage(usages) } : {}),
  };
  return jsonReply(replies[0]!, FORMATS.openai!.chat!.encodeResponse(joined));
}
