import type { Clock } from "../../actors/runtime/clock";
import { badRequest } from "../http/errors";
import type { OutboundReach } from "../outbound/reach";
import { policyFor } from "../outbound/reach";
import { type ConfiguredSink, configureSink, SinkFieldError } from "./configured-sinks";
import type { StoredSink } from "./sink-store";

/** A stored sink ready to run: values taken as written, its address under the outbound policy. */
export function configureStored(sink: StoredSink, clock: Clock, reach: OutboundReach): Promise<ConfiguredSink> {
  return configureSink(sink, { source: "api", clock, resolve: (value) => value, policy: policyFor(reach, sink.allow_private_network === true) });
}

/** The same, for a write: a wrong filter or field is a 400 naming it. */
export async function checkedStored(sink: StoredSink, clock: Clock, reach: OutboundReach): Promise<ConfiguredSink> {
  try {
    return await configureStored(sink, clock, reach);
  } catch (error) {
    if (error instanceof SinkFieldError) throw badRequest(error.message, error.field);
    throw error;
  }
}

/** The sinks delivery runs now: the configuration's, fixed at start, and the API's, replaced at each reload. */
export class LiveSinks {
  private stored: ConfiguredSink[] = [];

  constructor(readonly fromConfig: readonly ConfiguredSink[]) {}

  all(): ConfiguredSink[] {
    return [...this.fromConfig, ...this.stored];
  }

  get(name: string): ConfiguredSink | undefined {
    return this.fromConfig.find((sink) => sink.name === name) ?? this.stored.find((sink) => sink.name === name);
  }

  /** The API's sinks, a name of the configuration's left out (the configuration wins). */
  replaceStored(sinks: readonly ConfiguredSink[]): void {
    this.stored = sinks.filter((sink) => !this.fromConfig.some((configured) => configured.name === sink.name));
  }
}
