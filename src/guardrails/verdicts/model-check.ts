import type { VerdictFn } from "../checks";
import { withTimeout } from "./deadline";

const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_PROMPT =
  "You check text for a gateway's content policy. Reply with one word: BLOCK if the text below must not pass (harmful, abusive, or against the policy), ALLOW otherwise.";
/** A chat model's answer that blocks: its first word. */
const BLOCKING_ANSWER = /^\W*(block|unsafe|flagged|deny)\b/i;

/** A call the gateway makes to itself: the operation, an OpenAI-format body, the request it checks. */
export interface SelfCall {
  operation: "chat" | "moderation";
  body: Record<string, unknown> & { model: string };
  parentRequestId: string;
  signal: AbortSignal;
}

export interface ModelCheckDeps {
  /** Sends the call through the gateway's own pipeline (routing, keys, logs), unchecked by guardrails. */
  callSelf(call: SelfCall): Promise<Response>;
}

export interface ModelCheckConfig {
  model: string;
  endpoint: "chat" | "moderation";
  prompt?: string;
  timeoutMs?: number;
  failClosed: boolean;
}

function blocks(endpoint: ModelCheckConfig["endpoint"], reply: unknown): boolean {
  if (endpoint === "moderation") return ((reply as { results?: Array<{ flagged?: boolean }> }).results ?? []).some((result) => result.flagged === true);
  const content = (reply as { choices?: Array<{ message?: { content?: unknown } }> }).choices?.[0]?.message?.content;
  if (typeof content !== "string") throw new Error("the checking model answered no text");
  return BLOCKING_ANSWER.test(content);
}

function bodyFor(config: ModelCheckConfig, text: string): SelfCall["body"] {
  if (config.endpoint === "moderation") return { model: config.model, input: text };
  return {
    model: config.model,
    messages: [
      { role: "system", content: config.prompt ?? DEFAULT_PROMPT },
      { role: "user", content: text },
    ],
  };
}

/** Asks a model (a chat model with a prompt, or a moderation endpoint) through the gateway; its own timeout, fail open unless told. */
export function modelCheck(config: ModelCheckConfig, deps: ModelCheckDeps): VerdictFn {
  return async ({ text, requestId }) => {
    try {
      return await withTimeout(config.timeoutMs ?? DEFAULT_TIMEOUT_MS, async (signal) => {
        const response = await deps.callSelf({ operation: config.endpoint, body: bodyFor(config, text), parentRequestId: requestId, signal });
        if (!response.ok) throw new Error(`the checking model answered ${response.status}`);
        return blocks(config.endpoint, await response.json());
      });
    } catch {
      return config.failClosed;
    }
  };
}
