import type { Server, ServerWebSocket } from "bun";
import { badRequest, GatewayError, upgradeRequired } from "../../http/errors";
import type { Usage } from "../canonical";
import { usageOf } from "../formats/genai/response";
import type { Attempt } from "../../db/schema/types";
import { type AdmittedCall, admitCall, assertPinnedKeyOfTargets, failureOutcome, fallbacksOf, type Inference, type InferenceCall } from "../handle";
import type { ReplySummary } from "../reply-summary";
import { attemptOn, closeOtherSides, endedSession, type OpenedUpstream, openFirstTarget } from "./upstream-socket";

/**
 * Gemini's Live API through the gateway: `@google/genai`'s `ai.live.connect()` opens
 * `{mount}/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent` and names
 * its model in its first message (`setup`), so the session is admitted, and the provider's socket
 * opened with the gateway's key, once that message has come. A refusal closes the socket with
 * 1008 (policy) and the reason, as Gemini closes one it refuses. Each turn the model takes is
 * admitted when its first output arrives and logged and charged with its `usageMetadata` when
 * it is complete.
 */

const decoder = new TextDecoder();
/** A close reason is at most 123 bytes. */
const closeReason = (message: string) => (message.length > 120 ? `${message.slice(0, 117)}...` : message);

type Modality = { modality?: string; tokenCount?: number };

interface LiveUsageMetadata {
  promptTokenCount?: number;
  cachedContentTokenCount?: number;
  responseTokenCount?: number;
  toolUsePromptTokenCount?: number;
  thoughtsTokenCount?: number;
  totalTokenCount?: number;
  promptTokensDetails?: Modality[];
  cacheTokensDetails?: Modality[];
  responseTokensDetails?: Modality[];
}

interface ServerMessage {
  serverContent?: {
    modelTurn?: { parts?: Array<{ text?: string }> };
    outputTranscription?: { text?: string };
    turnComplete?: boolean;
  };
  toolCall?: { functionCalls?: Array<{ name?: string }> };
  usageMetadata?: LiveUsageMetadata;
}

const audioOf = (details: Modality[] | undefined) => details?.find((detail) => detail.modality === "AUDIO")?.tokenCount ?? 0;

/** Live's usage: generateContent's (its response counted as candidates, tool-use prompts as prompt), with audio, and cached audio, apart. */
export function liveUsageOf(metadata: LiveUsageMetadata): Usage {
  const usage = usageOf({ ...metadata, promptTokenCount: (metadata.promptTokenCount ?? 0) + (metadata.toolUsePromptTokenCount ?? 0), candidatesTokenCount: metadata.responseTokenCount });
  const [audioIn, cachedAudio, audioOut] = [audioOf(metadata.promptTokensDetails), audioOf(metadata.cacheTokensDetails), audioOf(metadata.responseTokensDetails)];
  if (audioIn) usage.prompt_tokens_details = { ...usage.prompt_tokens_details, audio_tokens: audioIn, ...(cachedAudio ? { cached_audio_tokens: cachedAudio } : {}) };
  if (audioOut) usage.completion_tokens_details = { ...usage.completion_tokens_details, audio_tokens: audioOut };
  return usage;
}

function parsed(message: string | ArrayBufferLike | Uint8Array): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(typeof message === "string" ? message : decoder.decode(message)) as unknown;
    return value && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** One turn of the model: admitted when its output starts, settled once complete and its usage known. */
interface Turn {
  admitted: Promise<AdmittedCall | undefined>;
  text: string;
  toolCallNames: string[];
  usage?: Usage;
  complete: boolean;
}

type ClientSocket = ServerWebSocket<unknown>;

class GeminiLiveSession {
  private client: ClientSocket | undefined;
  private upstream: WebSocket | undefined;
  private call: InferenceCall | undefined;
  private session: AdmittedCall | undefined;
  private opened: OpenedUpstream | undefined;
  private readonly attempts: Attempt[] = [];
  /** What the client sent after its setup, while the provider's socket was being opened. */
  private readonly waiting: Array<string | Buffer> = [];
  private setupSeen = false;
  private turn: Turn | undefined;
  private ended = false;
  private sessionSettled = false;

  constructor(
    private readonly inference: Inference,
    private readonly request: Request,
    private readonly mountProvider: string | undefined,
  ) {}

  readonly handlers = {
    open: (socket: ClientSocket) => {
      this.client = socket;
    },
    message: (_socket: ClientSocket, message: string | Buffer) => {
      if (!this.setupSeen) {
        this.setupSeen = true;
        void this.setUp(message);
      } else if (this.upstream?.readyState === WebSocket.OPEN) this.upstream.send(message);
      else this.waiting.push(message);
    },
    close: (_socket: ClientSocket, code: number, reason: string) => this.end("client", code, reason),
  };

  /** The session's first message names the model: admit the session, open the provider's socket, send the setup on. */
  private async setUp(message: string | Buffer): Promise<void> {
    const first = parsed(message);
    const setup = first?.setup as { model?: unknown } | undefined;
    const named = typeof setup?.model === "string" ? setup.model.replace(/^models\//, "") : undefined;
    if (!named) return this.refuse(badRequest("setup.model: a Live session's first message is its setup, naming the model", "setup.model"));
    const headers = this.request.headers;
    const call: InferenceCall = (this.call = {
      operation: "live",
      format: "genai",
      body: { model: named },
      model: named,
      fallbacks: fallbacksOf({}, headers),
      stream: true,
      request: this.request,
      mountProvider: this.mountProvider,
      sessionId: headers.get("x-gw-session-id") ?? Bun.randomUUIDv7(),
    });
    try {
      this.session = await admitCall(this.inference, call);
      assertPinnedKeyOfTargets(this.inference.providers, this.session.context.targets, headers.get("x-gw-api-key-id"));
      this.opened = await openFirstTarget(this.inference, "live", this.session, this.request, first!, this.attempts);
    } catch (error) {
      if (!(error instanceof GatewayError)) console.error("gemini live: the session could not be opened", error);
      const failure = error instanceof GatewayError ? error : new GatewayError({ status: 500, errorType: "gateway_internal", message: "the Live session could not be opened" });
      this.session?.settle({ ...failureOutcome(failure), attempts: this.attempts });
      return this.refuse(failure);
    }
    const upstream = this.opened.upstream;
    this.upstream = upstream;
    // The client left while the provider's socket was opening.
    if (this.ended) {
      upstream.close(1000);
      return this.settleSession("client", 1000);
    }
    upstream.binaryType = "arraybuffer";
    upstream.addEventListener("message", (event) => this.fromProvider(event.data as string | ArrayBuffer));
    upstream.addEventListener("close", (event) => this.end("provider", event.code, event.reason));
    upstream.send(this.opened.firstMessage!);
    for (const waiting of this.waiting.splice(0)) upstream.send(waiting);
  }

  /** The session, or a turn, was refused: the client's socket is closed with the reason, as Gemini closes one. */
  private refuse(error: unknown): void {
    this.ended = true;
    const refusal = error instanceof GatewayError ? error : new GatewayError({ status: 500, errorType: "gateway_internal", message: "the Live turn could not be admitted" });
    this.client?.close(refusal.status >= 500 ? 1011 : 1008, closeReason(refusal.message));
  }

  private fromProvider(data: string | ArrayBuffer): void {
    this.client?.send(data);
    const message = parsed(data) as ServerMessage | undefined;
    if (!message) return;
    const content = message.serverContent;
    const text = (content?.modelTurn?.parts ?? []).map((part) => part.text ?? "").join("") + (content?.outputTranscription?.text ?? "");
    const called = (message.toolCall?.functionCalls ?? []).flatMap((call) => (call.name ? [call.name] : []));
    if ((text || called.length > 0 || content?.modelTurn) && (!this.turn || this.turn.complete)) this.startTurn();
    const turn = this.turn;
    if (!turn) return;
    turn.text += text;
    turn.toolCallNames.push(...called);
    if (message.usageMetadata) turn.usage = liveUsageOf(message.usageMetadata);
    if (content?.turnComplete) turn.complete = true;
    if (turn.complete && turn.usage) this.settleTurn(turn, false);
  }

  private startTurn(): void {
    // A turn complete without its usage yet is settled as it stands when the next starts.
    if (this.turn) this.settleTurn(this.turn, false);
    const admitted = admitCall(this.inference, { ...this.call!, operation: "live_turn" }).catch((error: unknown) => {
      // Gemini has no way to cancel a turn: a virtual key past its limits ends the session.
      this.refuse(error);
      this.upstream?.close(1000);
      return undefined;
    });
    this.turn = { admitted, text: "", toolCallNames: [], complete: false };
  }

  private settleTurn(turn: Turn, truncated: boolean): void {
    if (this.turn === turn) this.turn = undefined;
    const opened = this.opened!;
    const summary: ReplySummary = { usage: turn.usage, toolCallNames: turn.toolCallNames, content: turn.text, finishReason: truncated ? null : turn.toolCallNames.length > 0 ? "tool_calls" : "stop", truncated };
    void turn.admitted.then((call) =>
      call?.settle({
        status: 200,
        answered: { target: opened.target, keyId: opened.keyId, isFallback: opened.isFallback },
        attempts: [attemptOn(opened)],
        summary,
        cost: summary.usage ? this.inference.price?.({ target: opened.target, keyId: opened.keyId, usage: summary.usage, context: call.context }) : undefined,
      }),
    );
  }

  /** Either side closed: the other follows (with the same code where it may be sent), then the session is logged, once. */
  private end(by: "client" | "provider", code: number, reason: string): void {
    this.ended = true;
    closeOtherSides(code, reason, this.upstream, this.client);
    this.settleSession(by, code);
  }

  /** The session's log: what it opened on and how it ended; its turns carry its usage. A turn cut short is logged as such. */
  private settleSession(by: "client" | "provider", code: number): void {
    if (this.sessionSettled || !this.session || !this.opened) return;
    this.sessionSettled = true;
    if (this.turn) this.settleTurn(this.turn, !this.turn.complete);
    this.session.settle(endedSession("Live", this.opened, this.attempts, by, code));
  }
}

/**
 * `GET {mount}/ws/google.ai.generativelanguage.{version}.GenerativeService.BidiGenerateContent`
 * with `Upgrade: websocket`: the client's socket is upgraded at once (the SDK's key, a virtual
 * key, may ride in the `key` query parameter), and the session set up from its first message.
 */
export function openGeminiLiveSession(inference: Inference, request: Request, server: Server<unknown>, mountProvider: string | undefined): Response | undefined {
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") throw upgradeRequired("Gemini's Live API");
  const key = new URL(request.url).searchParams.get("key");
  const headers = new Headers(request.headers);
  if (key && !headers.has("x-goog-api-key")) headers.set("x-goog-api-key", key);
  const session = new GeminiLiveSession(inference, new Request(request.url, { headers, signal: request.signal }), mountProvider);
  if (!server.upgrade(request, { data: session.handlers })) throw upgradeRequired("Gemini's Live API");
  return undefined;
}
