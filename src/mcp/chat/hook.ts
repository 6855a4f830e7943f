import { GatewayError } from "../../http/errors";
import { encodeSSE } from "../../http/sse";
import type { ChatChunk } from "../../inference/canonical";
import { asksForStreamUsage } from "../../inference/formats/openai/stream-usage";
import { handleInference, type Inference } from "../../inference/handle";
import type { InferenceHooks, RequestContext } from "../../inference/hooks";
import { MCP_SESSION_HEADER, type VirtualKeyDirectory } from "../caller";
import type { McpClientRegistry } from "../clients/registry";
import { type OfferedTool, offeredTools } from "../tools/catalogue";
import type { CallContext, ToolCall, ToolExecutor } from "../tools/executor";
import { toolFilterOf } from "../tools/filter";
import { SessionLinks } from "../server/session-links";
import type { CatalogueSearch } from "../search/catalogue-index";
import { type ChatToolSearch, chatToolSearch } from "../search/chat-search";
import { takeToolSearchField, toolSearchOf } from "../search/options";
import { answerCalls, autoExecutableCalls } from "./agent-mode";
import { ANTHROPIC_ROUNDS, type AgentRounds, OPENAI_ROUNDS } from "./agent-rounds";
import { anthropicCalls } from "./anthropic-rounds";
import { anthropicAgentStream } from "./anthropic-stream";
import { samplingRequestBody, samplingResult } from "./sampling";
import { relayRound, type StreamedRound, totalUsage } from "./streaming-agent";
import { injectsInto, withInjectedTools } from "./tool-injection";

export interface ChatHookDeps {
  registry: McpClientRegistry;
  executor: ToolExecutor;
  virtualKeys?: VirtualKeyDirectory;
  agentMaxDepth: number;
  /** A streamed agent's SSE comment interval while tools run. */
  keepAliveMs: number;
  publicBaseUrl?: string;
  /** The pipeline, for agent mode's follow-up requests; read late, as the pipeline holds this hook. */
  inference: () => Inference;
  /** "model": an upstream's sampling request is answered with the request's model; "refuse": sampling is not offered upstream. */
  sampling: "model" | "refuse";
  timeouts: { timeoutMs: number; maxTimeoutMs: number };
  /** The catalogue's search index, for requests with tool search. */
  toolSearch: CatalogueSearch;
}

/** An SSE comment: clients skip it, proxies see the stream is alive. */
const KEEP_ALIVE = new TextEncoder().encode(": running tool calls\n\n");

interface Prepared {
  offered: OfferedTool[];
  callContext: CallContext;
  /** The request's own upstream sessions, which offer sampling; closed when the agent ends. */
  links?: SessionLinks;
  /** Set when the request searches tools instead of getting them all. */
  search?: ChatToolSearch;
}

/** A sampling request the gateway's model could not answer, as the JSON-RPC error the upstream gets. */
const samplingFailure = (message: string) => Object.assign(new Error(message), { code: -32603 });

function originOf(headers: Headers, publicBaseUrl: string | undefined): string {
  return publicBaseUrl ?? `${headers.get("x-forwarded-proto") ?? "http"}://${headers.get("host") ?? "localhost"}`;
}

/** The caller as governance resolved it (a key it knows but the directory does not still counts as that key). */
async function chatCallContext(context: RequestContext, deps: ChatHookDeps): Promise<CallContext> {
  const caller = context.caller;
  const known = caller && ((await deps.virtualKeys?.byId(caller.virtualKeyId)) ?? { id: caller.virtualKeyId, name: caller.virtualKeyName, active: true });
  return {
    caller: { virtualKey: known, sessionId: context.headers.get(MCP_SESSION_HEADER) ?? undefined },
    filter: toolFilterOf(context.headers, known?.mcpConfigs),
    source: "agent",
    origin: originOf(context.headers, deps.publicBaseUrl),
    llmRequestId: context.id,
  };
}

/**
 * MCP in chat requests: `admit` adds the tools this caller may use to the request; on an
 * OpenAI-format reply whose tool calls are all auto-executable, agent mode runs them, feeds the
 * results back as a follow-up request (a child of this one), and repeats up to the configured
 * depth. The reply the client gets is the last one, or on a stream every round's text in turn.
 * An Anthropic-format request runs the same rounds, streamed or not, while it searches tools.
 */
export function mcpChatHook(deps: ChatHookDeps): InferenceHooks {
  const prepared = new WeakMap<RequestContext, Prepared>();
  const followUps = new WeakSet<Headers>();

  const followUp = (context: RequestContext, body: Record<string, unknown>, stream = false, format = context.format): Promise<Response> => {
    const headers = new Headers(context.headers);
    headers.delete("content-length");
    const request = new Request(`${originOf(context.headers, undefined)}/v1/chat/completions`, { method: "POST", headers });
    followUps.add(request.headers);
    const call = { operation: context.operation, format, body, model: context.requestedModel, fallbacks: context.requestedFallbacks ?? [], stream, request, mountProvider: context.mountProvider, parentRequestId: context.id };
    return handleInference(deps.inference(), call).catch((error) => (error instanceof GatewayError ? error.toResponse() : Promise.reject(error)));
  };

  /** Sampling in agent mode: the request's model answers, as a follow-up request under the caller's key and budget. */
  function samplingLinks(context: RequestContext): SessionLinks {
    const sampling = async (params: Parameters<typeof samplingRequestBody>[1]) => {
      // The sampling request is written in OpenAI's format, whatever the chat request's.
      const response = await followUp(context, samplingRequestBody(context.requestedModel, params), false, "openai");
      const text = await response.text();
      if (response.status !== 200) throw samplingFailure(`the gateway's model '${context.requestedModel}' failed the sampling request with HTTP ${response.status}`);
      const result = samplingResult(text, context.requestedModel);
      if (!result) throw samplingFailure(`the gateway's model '${context.requestedModel}' gave no message`);
      return result;
    };
    return new SessionLinks({ sampling }, { sampling: {} }, deps.timeouts, deps.registry.reach);
  }

  /** The request's tool search when it asks for it, on the formats whose rounds the gateway runs (OpenAI's and Anthropic's). */
  function toolSearchFor(context: RequestContext, callContext: CallContext, offered: OfferedTool[], field: unknown): ChatToolSearch | undefined {
    const options = toolSearchOf(context.headers, field, callContext.caller.virtualKey?.toolSearch);
    const searches = context.format === "openai" || context.format === "anthropic";
    return options && searches ? chatToolSearch(() => deps.toolSearch.index(), offered, options, context.body, context.format) : undefined;
  }

  async function injectTools(context: RequestContext, searchField: unknown): Promise<void> {
    const callContext = await chatCallContext(context, deps);
    const offered = offeredTools(deps.registry, callContext.filter);
    if (offered.length === 0) return;
    const search = toolSearchFor(context, callContext, offered, searchField);
    context.body = search ? search.declare(context.body) : withInjectedTools(context.body, context.format, offered);
    const links = deps.sampling === "model" ? samplingLinks(context) : undefined;
    // A stdio server would need a process per request: its calls stay on the shared session, without sampling.
    if (links) callContext.relay = { ownLink: async (entry) => (entry.config.connectionType !== "stdio" && entry.connection?.session() ? links.linkFor(entry) : undefined) };
    prepared.set(context, { offered, callContext, links, search });
  }

  /** One round's tool calls run (search_tools answered by the search), and the next round's body. */
  async function nextRound<R extends { calls: ToolCall[] }>({ callContext, search }: Prepared, body: Record<string, unknown>, pending: R, rounds: AgentRounds<R>) {
    const answered = await answerCalls(search?.executor(deps.executor) ?? deps.executor, pending.calls, callContext);
    const next = rounds.next(body, pending, answered);
    return search ? search.declare(next) : next;
  }

  async function runAgent<R extends { calls: ToolCall[] }>(context: RequestContext, response: Response, state: Prepared, rounds: AgentRounds<R>): Promise<Response> {
    let current = response;
    let body = context.body;
    for (let round = 0; round < deps.agentMaxDepth && current.status === 200; round++) {
      const text = await current.text();
      const pending = rounds.pending(text, state.offered, state.search);
      if (!pending) return new Response(text, current);
      const next = await nextRound(state, body, pending, rounds).catch((error) => {
        if (error instanceof GatewayError) return error;
        throw error;
      });
      if (next instanceof GatewayError) return next.toResponse();
      body = next;
      current = await followUp(context, body);
    }
    return current;
  }

  /**
   * Agent mode on a stream: the client gets each round's text as it comes; a round's tool calls
   * are held back, and run when all are auto-executable (the next round then streams on in the
   * same response), or sent on when not. A client that asked for usage gets the rounds' sum.
   */
  function runStreamingAgent(context: RequestContext, response: Response, state: Prepared): Response {
    if (response.status !== 200 || !response.body) return response;
    const left = new AbortController();
    const stream = new ReadableStream<Uint8Array>({
      // Pulled once: the rounds run to the end, writing as they go.
      async pull(controller) {
        // Once the client has left, nothing more is written.
        const send = (data: unknown) => {
          if (!left.signal.aborted) controller.enqueue(encodeSSE(data));
        };
        const rounds: StreamedRound[] = [];
        let current = response;
        let body = context.body;
        // One round's words do not run into the next's: a paragraph break goes before a round's first text.
        let spokeBefore = false;
        let spokeNow = false;
        const relay = (chunk: ChatChunk) => {
          const choice = chunk.choices[0];
          if (choice?.delta.content && spokeBefore && !spokeNow) send({ ...chunk, choices: [{ ...choice, delta: { content: "\n\n" } }] });
          spokeNow ||= Boolean(choice?.delta.content);
          send(chunk);
        };
        try {
          for (let round = 0; ; round++) {
            const streamed = await relayRound(current.body!, relay, left.signal);
            rounds.push(streamed);
            spokeBefore ||= spokeNow;
            spokeNow = false;
            if (left.signal.aborted) return;
            const pending = round < deps.agentMaxDepth && streamed.finishReason === "tool_calls" ? autoExecutableCalls({ choices: [{ message: streamed.message }] }, state.offered, state.search) : undefined;
            if (!pending) {
              for (const chunk of streamed.held) send(chunk);
              break;
            }
            const keepAlive = setInterval(() => {
              if (!left.signal.aborted) controller.enqueue(KEEP_ALIVE);
            }, deps.keepAliveMs);
            body = await nextRound(state, body, pending, OPENAI_ROUNDS).finally(() => clearInterval(keepAlive));
            current = await followUp(context, body, true);
            if (current.status !== 200 || !current.body) {
              send(await current.json());
              break;
            }
          }
          const usage = totalUsage(rounds);
          if (usage && asksForStreamUsage(context.body)) send({ ...rounds[0]!.head, choices: [], usage });
        } catch (error) {
          if (!(error instanceof GatewayError)) console.error("MCP agent mode: a streamed round failed", error);
          send((error instanceof GatewayError ? error : new GatewayError({ status: 502, errorType: "provider_stream_interrupted", message: "the agent's stream was interrupted" })).toBody());
        }
        await state.links?.close();
        if (left.signal.aborted) return;
        send("[DONE]");
        controller.close();
      },
      cancel: () => {
        left.abort();
        void state.links?.close();
      },
    });
    return new Response(stream, { status: 200, headers: response.headers });
  }

  /** Tool search on an Anthropic stream: the rounds go on in the one response while the gateway runs their calls. */
  function runStreamingAnthropic(context: RequestContext, response: Response, state: Prepared): Response {
    let body = context.body;
    return anthropicAgentStream(response, {
      maxDepth: deps.agentMaxDepth,
      keepAliveMs: deps.keepAliveMs,
      pending: (content) => anthropicCalls(content, state.offered, state.search),
      next: async (round) => {
        body = await nextRound(state, body, round, ANTHROPIC_ROUNDS);
        return followUp(context, body, true);
      },
      close: async () => state.links?.close(),
    });
  }

  return {
    name: "mcp",
    admit(context) {
      if (context.operation !== "chat" || followUps.has(context.headers)) return;
      const { body, field } = takeToolSearchField(context.body);
      context.body = body;
      if (deps.registry.size === 0 || !injectsInto(context.format)) return;
      return injectTools(context, field);
    },
    transformResponse(context, response) {
      const state = prepared.get(context);
      if (!state) return response;
      if (context.format === "openai") {
        if (context.stream) return runStreamingAgent(context, response, state);
        return runAgent(context, response, state, OPENAI_ROUNDS).finally(() => state.links?.close());
      }
      // Anthropic's format runs rounds while it searches tools.
      if (context.format !== "anthropic" || !state.search) return response;
      if (context.stream) return runStreamingAnthropic(context, response, state);
      return runAgent(context, response, state, ANTHROPIC_ROUNDS).finally(() => state.links?.close());
    },
  };
}
