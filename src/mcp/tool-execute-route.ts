import { Elysia, t } from "elysia";
import { replies } from "../http/replies";
import { type CallerAuth, callContextOf } from "./call-context";
import { resultText } from "./tools/call-result";
import type { ToolExecutor } from "./tools/executor";

/** An OpenAI tool call, as the model returned it. */
const ToolCallBody = t.Object({
  id: t.Optional(t.String()),
  type: t.Optional(t.Literal("function")),
  function: t.Object({ name: t.String({ minLength: 1 }), arguments: t.Optional(t.String()) }),
});

const ToolMessage = t.Object(
  { role: t.Literal("tool"), tool_call_id: t.String({ description: "The call's `id`, or one the gateway made up when it had none." }), content: t.String({ description: "The tool's result as text." }) },
  { title: "McpToolMessage", description: "The tool message to append to the conversation, as OpenAI's chat format has it." },
);

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
      { body: ToolCallBody, ...replies({ 200: ToolMessage }, { summary: "Run an MCP tool call", description: "Runs a tool call the model returned on the MCP client that owns the tool, under the caller's virtual key." }) },
    );
