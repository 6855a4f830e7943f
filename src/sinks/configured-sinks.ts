import type { Clock } from "../../actors/runtime/clock";
import type { RetryPolicy } from "../../actors/webhook-delivery";
import { resolveEnvReference } from "../config/env-reference";
import { ConfigError } from "../config/load";
import type { LogSinkConfig } from "../config/sections/log-sinks";
import type { OutboundPolicy } from "../outbound/host-check";
import { CONTENT_FIELDS, SUMMARY_FIELDS } from "../logs/export";
import { fileTarget } from "./file-target";
import { httpTarget } from "./http-target";
import { compileRowFilter, type RowFilter, type SinkRow } from "./row-filter";
import type { SinkTarget } from "./targets";

const DEFAULTS = { batchSize: 500, pollIntervalMs: 1_000, backoffInitialMs: 1_000, backoffMaxMs: 300_000 };
const KNOWN_FIELDS = new Set<string>([...SUMMARY_FIELDS, ...CONTENT_FIELDS]);

/** A configured sink, ready to run: its filter compiled, its field selection and its target. */
export interface ConfiguredSink {
  name: string;
  /** Where it was defined: the configuration file (read-only through the API) or the API. */
  source: "config" | "api";
  type: LogSinkConfig["type"];
  /** Where rows go, for the status: a URL without its credentials and query, or a file path. */
  destination: string;
  config: LogSinkConfig;
  includeContent: boolean;
  matches: RowFilter;
  /** The row cut to the configured fields. */
  select(row: SinkRow): SinkRow;
  target: SinkTarget;
  /** Values an error's text must never show (secrets, header values). */
  secrets: string[];
  batchSize: number;
  pollIntervalMs: number;
  backoff: Pick<RetryPolicy, "backoffInitialMs" | "backoffMaxMs">;
}

/** A sink's field that is wrong, and why (a phrase to follow the field's name). */
export class SinkFieldError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field} ${reason}`);
  }
}

/** How a sink is set up beyond its settings: where it came from, how `env.NAME` values read, and the outbound policy of an address a user gave. */
export interface SinkSetup {
  source: ConfiguredSink["source"];
  clock: Clock;
  resolve: (value: string) => string;
  policy?: OutboundPolicy;
}

function selector(fields: readonly string[] | undefined): (row: SinkRow) => SinkRow {
  if (!fields) return (row) => row;
  const unknown = fields.filter((field) => !KNOWN_FIELDS.has(field));
  if (unknown.length) throw new SinkFieldError("fields", `names no field of a log row: ${unknown.join(", ")}`);
  return (row) => Object.fromEntries(fields.map((field) => [field, row[field] ?? null]));
}

const destinationOf = (sink: LogSinkConfig) => (sink.type === "file" ? sink.path : ((url) => `${url.origin}${url.pathname}`)(new URL(sink.url)));

/** A sink ready to run; a SinkFieldError names the first field that is wrong (a filter that does not compile, an unknown field). */
export async function configureSink(sink: LogSinkConfig, setup: SinkSetup): Promise<ConfiguredSink> {
  const matches = await compileRowFilter(sink.filter);
  if (typeof matches === "string") throw new SinkFieldError("filter", matches);
  const http = sink.type === "http" ? httpTarget(sink, setup.clock, setup.resolve, setup.policy) : undefined;
  const includeContent = sink.include_content === true || (sink.fields ?? []).some((field) => (CONTENT_FIELDS as string[]).includes(field));
  return {
    name: sink.name,
    source: setup.source,
    type: sink.type,
    destination: destinationOf(sink),
    config: sink,
    includeContent,
    matches,
    select: selector(sink.fields),
    target: http ?? fileTarget(sink as Extract<LogSinkConfig, { type: "file" }>),
    secrets: http?.secrets ?? [],
    batchSize: sink.batch_size ?? DEFAULTS.batchSize,
    pollIntervalMs: sink.poll_interval_ms ?? DEFAULTS.pollIntervalMs,
    backoff: { backoffInitialMs: sink.retry_backoff_initial_ms ?? DEFAULTS.backoffInitialMs, backoffMaxMs: sink.retry_backoff_max_ms ?? DEFAULTS.backoffMaxMs },
  };
}

/** The configured sinks, checked: unique names, filters that compile, fields that exist; a ConfigError names the first that is wrong. */
export async function configureSinks(sinks: readonly LogSinkConfig[], clock: Clock, env: Record<string, string | undefined>): Promise<ConfiguredSink[]> {
  const seen = new Set<string>();
  const configured: ConfiguredSink[] = [];
  for (const [index, sink] of sinks.entries()) {
    if (seen.has(sink.name)) throw new ConfigError(`log_sinks[${index}].name '${sink.name}' is taken by another sink`);
    seen.add(sink.name);
    const resolve = (value: string) => resolveEnvReference(value, env);
    configured.push(
      await configureSink(sink, { source: "config", clock, resolve }).catch((error) => {
        throw error instanceof SinkFieldError ? new ConfigError(`log_sinks[${index}].${error.message}`) : error;
      }),
    );
  }
  return configured;
}
