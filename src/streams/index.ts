import { CHANGE_CHECK_MS } from "../db/table-changes";
import { ResumableStreams, type ResumableStreamsDeps, type StreamSettings } from "./resumable-streams";
import { streamRoutes } from "./routes";

/** The `resumable_streams` config section, as written. */
export interface ResumableStreamsConfig {
  retention_seconds?: number;
  max_stream_bytes?: number;
  max_reader_lag_bytes?: number;
  max_total_bytes?: number;
  flush_interval_ms?: number;
  follow_interval_ms?: number;
}

const DEFAULT_STREAM_RETENTION_SECONDS = 3600;
const DEFAULT_MAX_STREAM_BYTES = 8 * 2 ** 20;
const DEFAULT_MAX_TOTAL_STREAM_BYTES = 512 * 2 ** 20;
const DEFAULT_STREAM_FLUSH_MS = 200;

export function streamSettings(config: ResumableStreamsConfig = {}): StreamSettings {
  const maxStreamBytes = config.max_stream_bytes ?? DEFAULT_MAX_STREAM_BYTES;
  return {
    retentionSeconds: config.retention_seconds ?? DEFAULT_STREAM_RETENTION_SECONDS,
    maxStreamBytes,
    // Twice the stream's bound: a reader resuming from the start has room for the whole replay and what follows it.
    maxReaderLagBytes: config.max_reader_lag_bytes ?? 2 * maxStreamBytes,
    maxTotalBytes: config.max_total_bytes ?? DEFAULT_MAX_TOTAL_STREAM_BYTES,
    flushMs: config.flush_interval_ms ?? DEFAULT_STREAM_FLUSH_MS,
    followMs: config.follow_interval_ms ?? CHANGE_CHECK_MS,
  };
}

export interface ResumableStreamsOptions extends Omit<ResumableStreamsDeps, "settings"> {
  settings: () => ResumableStreamsConfig | undefined;
  /** Checks a reader's virtual key as inference checks it (throws the 401 or 403). */
  checkCaller: (headers: Headers) => void;
}

/** Resumable streams: what the pipeline keeps (`kept`), the /v1/streams routes, the actors (`resume` on start, `stop` on shutdown). */
export function createResumableStreams({ settings, checkCaller, ...deps }: ResumableStreamsOptions) {
  const streams = new ResumableStreams({ ...deps, settings: () => streamSettings(settings()) });
  return {
    kept: streams,
    routes: streamRoutes(streams, checkCaller),
    resume: () => streams.resume(),
    stop: () => streams.stop(),
  };
}
