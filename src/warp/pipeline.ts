import { handleInference, type Inference } from "../inference/handle";
import { clientClosed, upstreamTimedOut } from "../upstream/errors";
import { timerDelay } from "../../actors/runtime/clock";

/** Metadata every request the agent makes carries (`metadata_warp_agent=chat|embedding` in the logs). */
export const WARP_METADATA_KEY = "warp_agent";

export type AgentCallKind = "chat" | "embedding";

/** A bound on one upstream call: it aborts when the caller does or when `seconds` pass. */
export interface Deadline {
  signal: AbortSignal;
  /** The error to report once the call failed: a timeout, a caller that left, or the call's own. */
  explain(error: unknown): unknown;
  clear(): void;
}

export function deadline(parent: AbortSignal, seconds: number): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timerDelay(seconds * 1000));
  const forward = () => controller.abort();
  if (parent.aborted) forward();
  else parent.addEventListener("abort", forward, { once: true });
  return {
    signal: controller.signal,
    explain(error) {
      if (timedOut) return upstreamTimedOut(seconds);
      if (parent.aborted) return clientClosed();
      return error;
    },
    clear() {
      clearTimeout(timer);
      parent.removeEventListener("abort", forward);
    },
  };
}

export interface AgentCall {
  kind: AgentCallKind;
  /** An OpenAI-format body whose `model` is `provider/model`. */
  body: Record<string, unknown> & { model: string };
  /** Pins one of the provider's keys; empty uses the provider's whole pool. */
  keyId: string;
  stream: boolean;
  signal: AbortSignal;
}

/**
 * Sends one of the agent's requests through the gateway's own pipeline, as an OpenAI-format
 * call: routing, key selection, pricing and request logs treat it like any other request.
 * Throws the pipeline's GatewayError when it fails.
 */
export function callPipeline(inference: Inference, call: AgentCall): Promise<Response> {
  const headers = new Headers({ "content-type": "application/json", [`x-gw-metadata-${WARP_METADATA_KEY}`]: call.kind });
  if (call.keyId) headers.set("x-gw-api-key-id", call.keyId);
  const path = call.kind === "chat" ? "/v1/chat/completions" : "/v1/embeddings";
  const request = new Request(`http://gateway.internal${path}`, { method: "POST", headers, body: JSON.stringify(call.body), signal: call.signal });
  return handleInference(inference, {
    operation: call.kind,
    format: "openai",
    body: call.body,
    model: call.body.model,
    fallbacks: [],
    stream: call.stream,
    request,
    internalCaller: "warp",
  });
}
