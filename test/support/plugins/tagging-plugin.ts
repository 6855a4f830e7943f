import type { GatewayPluginModule } from "../../../src/plugins";

type Message = { role: string; content: string };

function appendHeader(response: Response, name: string, value: string): Response {
  const headers = new Headers(response.headers);
  headers.set(name, [headers.get(name), value].filter(Boolean).join(","));
  return new Response(response.body, { status: response.status, headers });
}

/**
 * A test plugin that leaves a trace of its tag (`config.tag`) at every hook: appended to the
 * last user message before dispatch, to `x-plugin-trail` after the response, to
 * `x-transport-trail` on the transport; it answers 418 itself when `x-stop-at` names its tag.
 */
export default {
  name: "tagging",
  create(config, host) {
    const tag = String(config.tag);
    host.log(`tagging requests with ${tag}`);
    return {
      admit(context) {
        const messages = context.body.messages as Message[];
        const last = messages.findLast((message) => message.role === "user")!;
        context.body = { ...context.body, messages: [...messages.slice(0, -1), { ...last, content: `${last.content} [${tag}]` }] };
      },
      transformResponse: (_context, response) => appendHeader(response, "x-plugin-trail", tag),
      onHttpRequest(request) {
        if (request.headers.get("x-stop-at") === tag) return Response.json({ stopped_by: tag }, { status: 418 });
      },
      onHttpResponse: (_request, response) => appendHeader(response, "x-transport-trail", tag),
    };
  },
} satisfies GatewayPluginModule;
