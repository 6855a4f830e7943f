import { Elysia, t } from "elysia";
import { type CallerAuth, callContextOf } from "./call-context";
import { resultText } from "./tools/call-result";
import type { ToolExecutor } from "./tools/executor";

/** An OpenAI tool call, as the model returned it. */
const ToolCallBody = t.Object({
  id: t.Optional(t.String()),
  type: t.Optional(t.Literal("function")),
  function: t.Object({ name: t.String({ minLength: 1 }), arguments: t.Optional(t.String()) }),
});

/** POST /v1/mcp/tool/execute: runs a tool call on the client that owns the tool; answers the tool message to send back. */
export const toolExecuteRoute = (executor: ToolExecutor, auth: CallerAuth) =>
  new Elysia({ name: "mcp-tool-execute" })
    // Derived before validation: who is asking is settled before what they sent.
    .derive(async ({ request }) => ({ callContext: await callContextOf(request, auth, "tool_execute") }))
    .post(
      "/v1/mcp/tool/execute",
      async ({ body, callContext }) => {
        const toolCallId = body.id ?? `call_${crypto.randomUUID()}`;
        const result = await executor.execute({ id: toolCallId, function: body.function }, callContext);
        return { role: "tool" as const, tool_call_id: toolCallId, content: resultText(result) };
      },
      { body: ToolCallBody },
    );
