import OpenAI from "openai";

/** Bundled into the page of test/http/cors.test.ts: the SDK as a web app would call the gateway. */
async function chat(baseURL: string, apiKey: string): Promise<string> {
  const client = new OpenAI({ baseURL, apiKey, dangerouslyAllowBrowser: true, maxRetries: 0 });
  const reply = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "from the page" }] });
  return reply.choices[0]?.message.content ?? "";
}

(globalThis as unknown as { chat: typeof chat }).chat = chat;
