import type { ChatBody, ChatMessage } from "./types";

/** Where the gateway is, as this page reached it, and the environment variable the code reads the virtual key from. */
export interface CodeTarget {
  origin: string;
  /** Undefined when the run used no virtual key. */
  keyVariable?: string;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);
const shellQuoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** The request as curl sends it: the same URL, headers and body. */
export function asCurl(body: ChatBody, target: CodeTarget): string {
  const auth = target.keyVariable ? ` \\\n  -H "Authorization: Bearer $${target.keyVariable}"` : "";
  return `curl ${target.origin}/v1/chat/completions${auth} \\\n  -H 'content-type: application/json' \\\n  -d ${shellQuoted(json(body))}`;
}

const apiKey = (target: CodeTarget) => (target.keyVariable ? `process.env.${target.keyVariable}` : `"none"`);

/** The same call with the OpenAI SDK (TypeScript), pointed at the gateway. */
export function asOpenAI(body: ChatBody, target: CodeTarget): string {
  const reading = body.stream
    ? `for await (const chunk of reply) process.stdout.write(chunk.choices[0]?.delta?.content ?? "");`
    : `console.log(reply.choices[0]?.message);`;
  return `import OpenAI from "openai";

const client = new OpenAI({ baseURL: "${target.origin}/v1", apiKey: ${apiKey(target)} });
const reply = await client.chat.completions.create(${json(body)});
${reading}
`;
}

type AnthropicBlock = { type: "text"; text: string } | { type: "image"; source: { type: "base64"; media_type: string; data: string } | { type: "url"; url: string } };

function anthropicBlock(part: Exclude<Extract<ChatMessage, { role: "user" }>["content"], string>[number]): AnthropicBlock {
  if (part.type === "text") return part;
  const inline = /^data:([^;]+);base64,(.*)$/s.exec(part.image_url.url);
  return { type: "image", source: inline ? { type: "base64", media_type: inline[1]!, data: inline[2]! } : { type: "url", url: part.image_url.url } };
}

/** The request in Anthropic's Messages format, as sent to the gateway's /anthropic mount (which requires max_tokens). */
export function anthropicBody(body: ChatBody): Record<string, unknown> {
  const system = body.messages.find((message) => message.role === "system")?.content;
  const messages = body.messages
    .filter((message) => message.role === "user")
    .map((message) => ({ role: "user", content: typeof message.content === "string" ? message.content : message.content.map(anthropicBlock) }));
  const tools = body.tools?.map(({ function: tool }) => ({ name: tool.name, ...(tool.description ? { description: tool.description } : {}), input_schema: tool.parameters }));
  return {
    model: body.model,
    max_tokens: body.max_tokens ?? 1024,
    ...(system ? { system } : {}),
    messages,
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(tools ? { tools } : {}),
    ...(body.stream ? { stream: true } : {}),
  };
}

/** The same call with the Anthropic SDK (TypeScript): any `provider/model` works on the gateway's /anthropic mount. */
export function asAnthropic(body: ChatBody, target: CodeTarget): string {
  const reading = body.stream
    ? `for await (const event of reply) if (event.type === "content_block_delta" && event.delta.type === "text_delta") process.stdout.write(event.delta.text);`
    : `console.log(reply.content);`;
  return `import Anthropic from "@anthropic-ai/sdk";

const client = new Anthropic({ baseURL: "${target.origin}/anthropic", apiKey: ${apiKey(target)} });
const reply = await client.messages.create(${json(anthropicBody(body))});
${reading}
`;
}
