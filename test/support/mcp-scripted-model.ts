/**
 * A mock OpenAI chat-completions upstream that calls tools when told to, for MCP tests. The
 * user's first message is the script:
 * - `call <tool> <json args>[; call <tool> <json args>]`: the first reply calls those tools
 *   (after the words of a `say <words>` part, if any);
 *   once tool results come back it answers `results: <tool contents joined by " | ">`, and
 *   ` (N images)` for images the tools returned (sent after the results in a user message);
 * - `always call <tool> <json args>`: every reply calls the tool again (to hit the depth limit);
 * - `<step> then <step>...`, each step a `call` part: the reply after N tool-calling turns plays
 *   step N+1 (a tool the step names but the request does not offer is not called), then `results:`;
 * - anything else: `echo: <text>`.
 * A tool is only called when the request offers it, as a real model would. Streamed requests get
 * the same reply as OpenAI's chunks.
 */

export interface ScriptedModel {
  baseUrl: string;
  requests: Array<Record<string, unknown>>;
  stop(): void;
}

type Message = { role: string; content?: unknown; tool_calls?: unknown[] };

const firstUserText = (messages: Message[]) => String(messages.find((message) => message.role === "user")?.content ?? "");

function plannedCalls(script: string, offered: Set<string>): Array<{ name: string; arguments: string }> {
  return script
    .replace(/^always /, "")
    .split(";")
    .map((part) => /^\s*call (\S+)\s*(\{.*\})?\s*$/.exec(part))
    .filter((match): match is RegExpExecArray => match !== null && offered.has(match[1]!))
    .map((match) => ({ name: match[1]!, arguments: match[2] ?? "{}" }));
}

/** `say <words>` in the script: what the model writes before the tool calls of its first reply. */
const preface = (script: string) => /(?:^|;)\s*say ([^;]+)/.exec(script)?.[1]?.trim() ?? null;

function reply(body: Record<string, unknown>) {
  const messages = (body.messages ?? []) as Message[];
  const script = firstUserText(messages);
  const offered = new Set(((body.tools ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name));
  const trailingResults: string[] = [];
  let images = 0;
  for (const message of messages.toReversed()) {
    // Images the tools returned follow their results in a user message.
    if (message.role === "user" && Array.isArray(message.content) && trailingResults.length === 0) {
      images += (message.content as Array<{ type: string }>).filter((part) => part.type === "image_url").length;
      continue;
    }
    if (message.role !== "tool") break;
    trailingResults.unshift(String(message.content));
  }
  const steps = script.split(" then ");
  const step = steps.length > 1 ? (steps[messages.filter((message) => message.role === "assistant" && message.tool_calls?.length).length] ?? "") : undefined;
  const calls = step !== undefined ? plannedCalls(step, offered) : trailingResults.length > 0 && !script.startsWith("always ") ? [] : plannedCalls(script, offered);
  const round = messages.filter((message) => message.role === "tool").length;
  const message =
    calls.length > 0
      ? { role: "assistant", content: preface(script), tool_calls: calls.map((call, index) => ({ id: `call_${round}_${index}`, type: "function", function: call })) }
      : { role: "assistant", content: trailingResults.length > 0 ? `results: ${trailingResults.join(" | ")}${images > 0 ? ` (${images} images)` : ""}` : `echo: ${script}` };
  return {
    id: `chatcmpl-${crypto.randomUUID()}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [{ index: 0, message, finish_reason: calls.length > 0 ? "tool_calls" : "stop" }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

/** The reply as OpenAI streams it: text a word at a time, each tool call opened then its arguments, the finish, the usage when asked. */
function streamedReply(body: Record<string, unknown>): string {
  const whole = reply(body);
  const { message, finish_reason } = whole.choices[0]!;
  const chunk = (delta: object, finish: string | null = null) => ({ id: whole.id, object: "chat.completion.chunk", created: whole.created, model: whole.model, choices: [{ index: 0, delta, finish_reason: finish }] });
  const chunks: object[] = [chunk({ role: "assistant", content: "" })];
  for (const word of String(message.content ?? "").split(/(?<= )/).filter(Boolean)) chunks.push(chunk({ content: word }));
  for (const [index, call] of ((message as { tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }> }).tool_calls ?? []).entries()) {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }));
    chunks.push(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }));
  }
  chunks.push(chunk({}, finish_reason));
  if ((body.stream_options as { include_usage?: boolean } | undefined)?.include_usage) chunks.push({ ...chunk({}), choices: [], usage: whole.usage });
  return `${chunks.map((data) => `data: ${JSON.stringify(data)}\n\n`).join("")}data: [DONE]\n\n`;
}

export function startScriptedModel(): ScriptedModel {
  const requests: Array<Record<string, unknown>> = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const body = (await request.json()) as Record<string, unknown>;
      requests.push(body);
      return body.stream ? new Response(streamedReply(body), { headers: { "content-type": "text/event-stream" } }) : Response.json(reply(body));
    },
  });
  return { baseUrl: `http://127.0.0.1:${server.port}/v1`, requests, stop: () => server.stop(true) };
}
