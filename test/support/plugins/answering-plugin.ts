import type { GatewayPluginModule } from "../../../src/plugins";

/** A test plugin that answers chats whose last message is `config.question` itself, in OpenAI's format, without the upstream. */
export default {
  name: "answering",
  create(config) {
    return {
      admit(context) {
        const messages = context.body.messages as Array<{ content: string }>;
        if (messages.at(-1)?.content !== config.question) return;
        const completion = {
          id: "chatcmpl-plugin",
          object: "chat.completion",
          created: 0,
          model: String(context.body.model),
          choices: [{ index: 0, message: { role: "assistant", content: String(config.answer) }, finish_reason: "stop" }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        };
        return { response: Response.json(completion) };
      },
    };
  },
} satisfies GatewayPluginModule;
