import type { NewRequestLogRow } from "../db/schema/logs";
import type { InferenceHooks } from "../inference/hooks";
import type { BatchWriter } from "./batch-writer";
import { logRowFromSettled } from "./log-row";

/** The inference hook that turns every settled request into one queued log row. */
export function requestLogRecorder(writer: Pick<BatchWriter<NewRequestLogRow>, "enqueue">, contentLogging: () => boolean, region: string | null = null): InferenceHooks {
  return {
    name: "request-logs",
    settle(context, outcome) {
      try {
        writer.enqueue(logRowFromSettled(context, outcome, contentLogging(), region));
      } catch (error) {
        // A row that cannot be built must not disturb the response it describes.
        console.error(`request log: request ${context.id} could not be recorded`, error);
      }
    },
  };
}
