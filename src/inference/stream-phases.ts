import { writeFileSync } from "node:fs";

/**
 * Bench only: with GATEWAY_STREAM_PHASES_FILE set, each relayed stream notes when it reached each
 * phase, in ms from the request's arrival, and the file gets them all as JSON when the process
 * exits (`bench/stream-phases.ts` reads it). Unset, as everywhere but in that bench, the relay
 * only finds `streamPhases` undefined.
 */
export interface StreamPhases {
  /** The upstream's headers came (the relay began). */
  headers: number;
  firstUpstreamByte?: number;
  firstClientByte?: number;
  relays: number;
  /** The longest a chunk waited between its read and its write to the client. */
  longestRelay: number;
  settled?: number;
}

/** A stream's phases while it runs. */
export interface OpenPhases extends StreamPhases {
  acceptedAt: number;
}

function phaseLog(file: string) {
  const streams: StreamPhases[] = [];
  process.on("exit", () => writeFileSync(file, JSON.stringify(streams)));
  return {
    begin: (acceptedAt = performance.now()): OpenPhases => ({ acceptedAt, headers: performance.now() - acceptedAt, relays: 0, longestRelay: 0 }),
    read(phases: OpenPhases): number {
      const now = performance.now();
      phases.firstUpstreamByte ??= now - phases.acceptedAt;
      return now;
    },
    relayed(phases: OpenPhases, readAt: number): void {
      const now = performance.now();
      phases.firstClientByte ??= now - phases.acceptedAt;
      phases.relays++;
      phases.longestRelay = Math.max(phases.longestRelay, now - readAt);
    },
    settled(phases: OpenPhases): void {
      phases.settled = performance.now() - phases.acceptedAt;
      const { acceptedAt: _, ...kept } = phases;
      streams.push(kept);
    },
  };
}

const file = process.env.GATEWAY_STREAM_PHASES_FILE;
export const streamPhases = file ? phaseLog(file) : undefined;
