import { conflict, GatewayError } from "../../http/errors";
import type { StoredWarpConfig } from "../config/schema";
import type { Embedder } from "./embedder";
import { type EmbeddingSpace, embeddingSpaceOf } from "./embedding-space";
import { embeddableText } from "./log-text";
import type { LogVectorStore } from "./vector-store";

/** Logs read and embedded per step. */
const PAGE_SIZE = 32;

export type BackfillState = "idle" | "running" | "completed" | "cancelled" | "failed";

export interface BackfillRun {
  state: BackfillState;
  namespace?: string;
  embedding_provider?: string;
  embedding_model?: string;
  embedding_dimension?: number;
  /** Logs that had no vector in the space when the run started. */
  total_logs: number;
  processed_logs: number;
  indexed_logs: number;
  started_at?: string;
  finished_at?: string;
  error?: string;
}

export interface BackfillDeps {
  vectors: LogVectorStore;
  embed: Embedder;
  now(): Date;
}

const IDLE: BackfillRun = { state: "idle", total_logs: 0, processed_logs: 0, indexed_logs: 0 };

/**
 * Indexes the logs stored before the agent was configured (or while indexing was off), newest
 * first, one run at a time on this node. The run keeps the embedding space it started with;
 * `cancel` aborts the upstream call in flight and resolves once the run has stopped.
 */
export class LogBackfill {
  private run: BackfillRun = { ...IDLE };
  private controller: AbortController | undefined;
  private finished: Promise<void> | undefined;

  constructor(private readonly deps: BackfillDeps) {}

  status(): BackfillRun {
    return { ...this.run };
  }

  isRunning(): boolean {
    return this.run.state === "running";
  }

  /** Starts a run and answers once it knows how many logs it has to index. */
  async start(config: StoredWarpConfig): Promise<BackfillRun> {
    if (this.isRunning()) throw conflict("a log-index backfill is already running; cancel it first", "backfill");
    const space = embeddingSpaceOf(config);
    const controller = new AbortController();
    this.controller = controller;
    this.run = {
      ...IDLE,
      state: "running",
      namespace: space.namespace,
      embedding_provider: space.provider,
      embedding_model: space.model,
      embedding_dimension: space.dimension,
      started_at: this.deps.now().toISOString(),
    };
    const counted = this.prepare(space);
    this.finished = counted.then(
      () => this.index(space, config.request_timeout_seconds, controller.signal),
      (error: unknown) => this.fail(error, controller.signal),
    );
    await counted;
    return this.status();
  }

  /** Stops the run in progress, if any, and answers how it ended. */
  async cancel(): Promise<BackfillRun> {
    this.controller?.abort();
    await this.finished;
    return this.status();
  }

  private async prepare(space: EmbeddingSpace): Promise<void> {
    await this.deps.vectors.dropOtherSpaces(space);
    this.run.total_logs = await this.deps.vectors.countUnindexed(space);
  }

  private async index(space: EmbeddingSpace, timeoutSeconds: number, signal: AbortSignal): Promise<void> {
    try {
      let cursor: number | undefined;
      for (;;) {
        const page = await this.deps.vectors.unindexedPage(space, cursor, PAGE_SIZE);
        if (page.length === 0 || signal.aborted) break;
        cursor = page.at(-1)!.seq;
        const logs = page.map((log) => ({ id: log.id, text: embeddableText(log.requestContent, log.responseContent) })).filter((log) => log.text);
        const vectors = logs.length > 0 ? await this.deps.embed(logs.map((log) => log.text), space, { timeoutSeconds, signal }) : [];
        await this.deps.vectors.upsert(space, logs.map((log, index) => ({ logId: log.id, vector: vectors[index]! })), this.deps.now());
        this.run.processed_logs += page.length;
        this.run.indexed_logs += logs.length;
      }
      this.finish(signal.aborted ? "cancelled" : "completed");
    } catch (error) {
      this.fail(error, signal);
    }
  }

  private fail(error: unknown, signal: AbortSignal) {
    if (signal.aborted) return this.finish("cancelled");
    if (!(error instanceof GatewayError)) console.error("warp: log-index backfill failed", error);
    this.finish("failed", error instanceof GatewayError ? error.message : "internal error while indexing logs");
  }

  private finish(state: BackfillState, error?: string) {
    this.run = { ...this.run, state, finished_at: this.deps.now().toISOString(), ...(error ? { error } : {}) };
    this.controller = undefined;
  }
}
