import { createParser } from "eventsource-parser";
import { encodeSSE } from "../http/sse";
import type { Item } from "./items";

/** A Responses call in a conversation the gateway keeps: the conversation, and the input the call itself brought. */
export interface ConversationTurn {
  id: string;
  input: Item[];
}

type ResponseObject = { status?: unknown; output?: unknown };

/** Once a response has an answer (complete, or cut short at its token limit), its turn joins the conversation. */
const answered = (response: ResponseObject) => response.status === "completed" || response.status === "incomplete";
const outputOf = (response: ResponseObject): Item[] => (Array.isArray(response.output) ? response.output : []);

const withoutLength = (headers: Headers) => {
  const copied = new Headers(headers);
  copied.delete("content-length");
  return copied;
};

/**
 * The client's Responses reply in a conversation: each response object in it names the
 * conversation, and once the response has an answer, the turn's input and output are added to
 * the conversation before the reply ends, so a next turn sent at once finds them.
 */
export function recordingTurn(turn: ConversationTurn, reply: Response, add: (items: Item[]) => Promise<void>): Promise<Response> | Response {
  if (!reply.ok || !reply.body) return reply;
  const conversation = { id: turn.id };
  const headers = withoutLength(reply.headers);
  if (!headers.get("content-type")?.includes("event-stream")) {
    return reply.json().then(async (response) => {
      const object = response as Record<string, unknown>;
      if (answered(object)) await add([...turn.input, ...outputOf(object)]);
      return new Response(JSON.stringify({ ...object, conversation }), { status: reply.status, headers });
    });
  }
  const text = new TextDecoder();
  let added: Promise<void> | undefined;
  let parser: ReturnType<typeof createParser>;
  const stream = reply.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start(controller) {
        parser = createParser({
          onEvent(event) {
            const data = event.data.startsWith("{") ? (JSON.parse(event.data) as { response?: ResponseObject }) : undefined;
            if (!data?.response) return controller.enqueue(encodeSSE(event.data, event.event));
            if (!added && answered(data.response)) added = add([...turn.input, ...outputOf(data.response)]);
            controller.enqueue(encodeSSE({ ...data, response: { ...data.response, conversation } }, event.event));
          },
        });
      },
      transform(bytes) {
        parser.feed(text.decode(bytes, { stream: true }));
      },
      flush: () => added,
    }),
  );
  return new Response(stream, { status: reply.status, headers });
}
