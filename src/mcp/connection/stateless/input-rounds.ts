import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import type { RpcAnswer } from "./exchange";

/** A server that keeps asking is stopped here rather than looping with the caller's user. */
export const MAX_INPUT_ROUNDS = 8;
/** A round that only hands back `requestState` (the server is still working) is sent again after this pause. */
const STATE_ONLY_PAUSE_MS = 250;

const paused = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

/** An embedded request of an `input_required` result: elicitation, sampling or roots, asked of the client. */
export interface InputRequest {
  method: string;
  params?: Record<string, unknown>;
}

/** What a client's answer to an input request failed with: the original request fails with it. */
export class InputRefused extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

interface InputRequired {
  resultType: "input_required";
  inputRequests?: Record<string, InputRequest>;
  requestState?: string;
}

const inputRequired = (answer: RpcAnswer): InputRequired | undefined => ("result" in answer && answer.result.resultType === "input_required" ? (answer.result as unknown as InputRequired) : undefined);

/**
 * Multi round-trip requests (2026-07-28): while the server answers `input_required`, each input
 * request is asked of the client (`ask`), and the request is sent again with the answers as
 * `inputResponses` and the server's `requestState`. The last answer is the request's.
 */
export async function answerWithInput(request: JSONRPCRequest, send: (request: JSONRPCRequest) => Promise<RpcAnswer>, ask: (key: string, input: InputRequest) => Promise<unknown>, signal: AbortSignal): Promise<RpcAnswer> {
  let current = request;
  for (let round = 0; round <= MAX_INPUT_ROUNDS; round++) {
    const answer = await send(current);
    const required = inputRequired(answer);
    if (!required) return answer;
    const inputs = Object.entries(required.inputRequests ?? {});
    if (inputs.length === 0) await paused(STATE_ONLY_PAUSE_MS, signal);
    let inputResponses: Record<string, unknown>;
    try {
      inputResponses = Object.fromEntries(await Promise.all(inputs.map(async ([key, input]) => [key, await ask(key, input)] as const)));
    } catch (error) {
      if (!(error instanceof InputRefused)) throw error;
      return { jsonrpc: "2.0", id: request.id, error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) } };
    }
    current = { ...request, params: { ...request.params, ...(inputs.length > 0 ? { inputResponses } : {}), ...(required.requestState === undefined ? {} : { requestState: required.requestState }) } };
  }
  return { jsonrpc: "2.0", id: request.id, error: { code: -32603, message: `the server asked for input more than ${MAX_INPUT_ROUNDS} times on ${request.method}` } };
}
