import type { NewRequestLogRow } from "../db/schema/logs";
import type { InferenceHooks } from "../inference/hooks";
import type { BatchWriter } from "./batch-writer";
import { logRowFromSettled } from "./log-row";
import { isRefusedCaller } from "./refused-requests";
import { DEFAULT_REFUSED_REQUEST_LOGGING, type RefusedRequestLogging } from "../config/sections/refused-requests";

/**
 * The inference hook that turns every settled request into one queued log row; a request refused
 * for want of a valid virtual key is logged without its content, or not at all (`refusedRequests`).
 */
export function requestLogRecorder(writer: Pick<BatchWriter<NewRequestLogRow>, "enqueue">, contentLogging: () => boolean, refusedRequests: () => RefusedRequestLogging = () => DEFAULT_REFUSED_REQUEST_LOGGING, region: string | null = null): InferenceHooks {
  return {
    name: "request-logs",
    settle(context, outcome) {
      try {
        const refused = isRefusedCaller(outcome.status);
        if (refused && refusedRequests() === "off") return;
        writer.enqueue(logRowFromSettled(context, outcome, !refused && contentLogging(), region));
      } catch (error) {
        // A row that cannot be built must not disturb the response it describes.
        console.error(`request log: request ${context.id} could not be recorded`, error);
      }
    },
  };
}
