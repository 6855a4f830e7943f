import { assign, fromPromise, setup } from "xstate";
import type { Rehydrated } from "./runtime/durable-actors";

/** A response as the job keeps it: JSON parsed, anything else (audio) base64. */
export type StoredBody = { json: unknown } | { base64: string };

export interface StoredResponse {
  status: number;
  contentType: string;
  body: StoredBody;
}

export interface AsyncJobInput {
  id: string;
  /** The async path it was submitted on (`chat/completions`), or the mount path for `x-gw-async`. */
  route: string;
  requestType: string;
  createdAt: number;
  resultTtlSeconds: number;
  /** Hash of the virtual key the submitter presented; polling with another is a 404. */
  owner?: string;
  /** The endpoint named by `x-gw-async-webhook`. */
  webhook?: string;
  resultUrl: string;
  /** The request to replay (headers carry credentials): sealed, dropped once the job ends. */
  sealedRequest?: string;
}

export interface AsyncJobContext extends AsyncJobInput {
  /** Until the job ends, ttl after creation; then ttl after it ended. */
  expiresAt: number;
  startedAt?: number;
  completedAt?: number;
  response?: StoredResponse;
  /** The last time the machine was told (by an output or an event); timers count from it. */
  observedAt: number;
  /** Attempts at notifying the webhooks that failed (the database out of reach): the next waits longer. */
  notifyFailures?: number;
}

/** The status clients see: the machine's top-level state. */
export type JobStatus = "pending" | "processing" | "completed" | "failed" | "expired";

/** A job as it stands. */
export interface FoundJob {
  context: AsyncJobContext;
  status: JobStatus;
}

/** The wait before notifying again after `failures` failed attempts: 1 s, doubling, at most a minute. */
export const notifyRetryDelayMs = (failures: number) => Math.min(1000 * 2 ** Math.max(0, failures - 1), 60_000);

export interface JobRun {
  response: StoredResponse;
  finishedAt: number;
}

const unprovided = (name: string) =>
  fromPromise<never, unknown>(async () => {
    throw new Error(`async-job actor '${name}' was not provided`);
  });

/** Stops a job that has not finished; `response` is what it answers instead. */
export interface CancelJob {
  type: "cancel";
  at: number;
  response: StoredResponse;
}

/** A restored actor counts its timers from the moment it was restored. */
const observeRehydration = { type: "observe" as const, params: ({ event }: { event: Rehydrated }) => ({ at: event.at }) };

/**
 * pending -> processing -> completed | failed -> expired; `cancel` ends a job still pending or
 * processing as failed, stopping its run. No I/O here: waiting for a worker,
 * running the request and notifying webhooks are actors given with `.provide()`. A restored
 * job in `processing` runs its request again; one in `notifying` notifies again (deliveries
 * are keyed by job and endpoint, so none is sent twice).
 */
export const asyncJobMachine = setup({
  types: {
    input: {} as AsyncJobInput,
    context: {} as AsyncJobContext,
    events: {} as Rehydrated | CancelJob,
  },
  actors: {
    acquireWorker: unprovided("acquireWorker") as unknown as ReturnType<typeof fromPromise<{ at: number }, { jobId: string }>>,
    runJob: unprovided("runJob") as unknown as ReturnType<typeof fromPromise<JobRun, { jobId: string; sealedRequest: string }>>,
    notifyWebhooks: unprovided("notifyWebhooks") as unknown as ReturnType<typeof fromPromise<void, { jobId: string }>>,
  },
  guards: {
    answeredSuccessfully: (_, params: { status: number }) => params.status < 400,
  },
  delays: {
    resultTtl: ({ context }) => Math.max(0, context.expiresAt - context.observedAt),
    notifyRetry: ({ context }) => notifyRetryDelayMs(context.notifyFailures ?? 1),
  },
  actions: {
    observe: assign({ observedAt: (_, params: { at: number }) => params.at }),
    countNotifyFailure: assign({ notifyFailures: ({ context }) => (context.notifyFailures ?? 0) + 1 }),
    // The wait just ended: the result's ttl counts on from its end, not again from the last observation.
    observeRetryWait: assign({ observedAt: ({ context }) => context.observedAt + notifyRetryDelayMs(context.notifyFailures ?? 1) }),
    markStarted: assign({ startedAt: (_, params: { at: number }) => params.at, observedAt: (_, params: { at: number }) => params.at }),
    keepResponse: assign((_, params: JobRun & { ttlSeconds: number }) => ({
      response: params.response,
      completedAt: params.finishedAt,
      expiresAt: params.finishedAt + params.ttlSeconds * 1000,
      observedAt: params.finishedAt,
      sealedRequest: undefined,
    })),
  },
}).createMachine({
  id: "async-job",
  context: ({ input }) => ({ ...input, expiresAt: input.createdAt + input.resultTtlSeconds * 1000, observedAt: input.createdAt }),
  initial: "pending",
  on: {
    rehydrated: { actions: { type: "observe", params: ({ event }) => ({ at: event.at }) } },
  },
  states: {
    pending: {
      on: { cancel: cancelled() },
      invoke: {
        src: "acquireWorker",
        input: ({ context }) => ({ jobId: context.id }),
        onDone: { target: "processing", actions: { type: "markStarted", params: ({ event }) => ({ at: event.output.at }) } },
      },
    },
    processing: {
      on: { cancel: cancelled() },
      invoke: {
        src: "runJob",
        input: ({ context }) => ({ jobId: context.id, sealedRequest: context.sealedRequest ?? "" }),
        onDone: [
          {
            guard: { type: "answeredSuccessfully", params: ({ event }) => ({ status: event.output.response.status }) },
            target: "completed",
            actions: { type: "keepResponse", params: ({ context, event }) => ({ ...event.output, ttlSeconds: context.resultTtlSeconds }) },
          },
          { target: "failed", actions: { type: "keepResponse", params: ({ context, event }) => ({ ...event.output, ttlSeconds: context.resultTtlSeconds }) } },
        ],
      },
    },
    completed: finishedState(),
    failed: finishedState(),
    expired: { type: "final" },
  },
});

/** To failed, keeping the response the cancel gave; leaving the state stops the worker wait or the run. */
function cancelled() {
  return {
    target: "#async-job.failed" as const,
    actions: {
      type: "keepResponse" as const,
      params: ({ context, event }: { context: AsyncJobContext; event: CancelJob }) => ({ response: event.response, finishedAt: event.at, ttlSeconds: context.resultTtlSeconds }),
    },
  };
}

/**
 * completed and failed alike: notify the webhooks once, then keep the result for its ttl. A
 * notification that fails (the database out of reach) is tried again, waiting longer each time,
 * until the result expires: a webhook is not given up for an outage.
 */
function finishedState() {
  return {
    initial: "notifying" as const,
    states: {
      notifying: {
        invoke: {
          src: "notifyWebhooks" as const,
          input: ({ context }: { context: AsyncJobContext }) => ({ jobId: context.id }),
          onDone: "retained",
          onError: { target: "notifyWaiting", actions: "countNotifyFailure" as const },
        },
      },
      notifyWaiting: {
        after: { notifyRetry: { target: "notifying", actions: "observeRetryWait" as const }, resultTtl: "#async-job.expired" },
        on: { rehydrated: { target: "notifyWaiting", reenter: true, actions: observeRehydration } },
      },
      retained: {
        after: { resultTtl: "#async-job.expired" },
        on: { rehydrated: { target: "retained", reenter: true, actions: observeRehydration } },
      },
    },
  };
}
