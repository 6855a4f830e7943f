import { fromPromise } from "xstate";
import { type AsyncJobContext, type AsyncJobInput, asyncJobMachine, type CancelJob, type FoundJob, type JobRun, type JobStatus, type StoredResponse } from "../../actors/async-job";
import type { Clock } from "../../actors/runtime/clock";
import { DurableActors } from "../../actors/runtime/durable-actors";
import { KeyedSlots } from "../../actors/runtime/slots";
import type { ActorSnapshotStore } from "../../actors/runtime/snapshot-store";
import type { SecretBox } from "../crypto/secret-box";
import { GatewayError } from "../http/errors";
import type { FinishedJob } from "../webhooks";
import { isFinished, statusOf } from "./job-view";
import { replayRequest, resultOf, type StoredRequest, storeResponse } from "./stored-request";
import type { Submission } from "./submission";

const KIND = "async-job";
/** How often a node looks for cancels other nodes left for its jobs, and how often the node that left one looks for its effect. */
const SIGNAL_CHECK_MS = 100;
/** How long a cancel of a job another node runs waits for it to stop. */
const SIGNAL_WAIT_MS = 5_000;
const WORKERS = "workers";

export interface AsyncJobsDeps {
  snapshots: ActorSnapshotStore;
  secrets: SecretBox;
  clock: Clock;
  /** Runs a request through the gateway itself: the job's synchronous twin. */
  run: (request: Request) => Promise<Response>;
  /** Told once per finished job. */
  jobFinished: (job: FinishedJob) => Promise<void>;
  maxConcurrentJobs: number;
}

export interface NewJob extends Submission {
  route: string;
  requestType: string;
  resultUrl: (id: string) => string;
}

/** A response that never came (the stored request could not be opened, the replay broke) is kept as a gateway error. */
async function internalFailure(error: unknown) {
  const failure = new GatewayError({ status: 500, errorType: "gateway_async_job_failed", message: `the job could not run: ${error instanceof Error ? error.message : String(error)}` });
  return storeResponse(failure.toResponse());
}

/**
 * Async jobs as durable actors: each runs its request through the gateway's own pipeline,
 * keeps the response until its ttl ends, and tells the webhooks once.
 */
export class AsyncJobs {
  private readonly workers: KeyedSlots;
  private readonly actors: DurableActors<typeof asyncJobMachine>;

  constructor(private readonly deps: AsyncJobsDeps) {
    this.workers = new KeyedSlots(() => deps.maxConcurrentJobs);
    const machine = deps.snapshots.machines["async-job"].provide({
      actors: {
        acquireWorker: fromPromise(async ({ input, signal }) => {
          await this.workers.acquire(WORKERS, input.jobId, signal);
          return { at: deps.clock.now() };
        }),
        runJob: fromPromise(({ input, signal }) => this.runJob(input.jobId, input.sealedRequest, signal)),
        notifyWebhooks: fromPromise(({ input }) => this.notify(input.jobId)),
      },
    });
    this.actors = new DurableActors({ kind: KIND, machine, store: deps.snapshots, clock: deps.clock, signalCheckMs: SIGNAL_CHECK_MS });
  }

  async submit(job: NewJob): Promise<FoundJob> {
    const id = crypto.randomUUID();
    const input: AsyncJobInput = {
      id,
      route: job.route,
      requestType: job.requestType,
      createdAt: this.deps.clock.now(),
      resultTtlSeconds: job.resultTtlSeconds,
      owner: job.owner,
      webhook: job.webhook,
      resultUrl: job.resultUrl(id),
      sealedRequest: this.deps.secrets.seal(JSON.stringify(job.request)),
    };
    const snapshot = (await this.actors.spawn(id, input)).getSnapshot();
    return { context: snapshot.context, status: statusOf(snapshot.value) };
  }

  /**
   * The job as its owner sees it: undefined when unknown, expired, or submitted with another
   * virtual key. Jobs of this node are live; others are read from the shared database.
   */
  async find(id: string, owner: string | undefined): Promise<FoundJob | undefined> {
    const live = this.actors.get(id)?.getSnapshot();
    const persisted = live ?? ((await this.deps.snapshots.load(KIND, id)) as { value: unknown; context: AsyncJobContext } | undefined);
    if (!persisted) return undefined;
    const { context } = persisted;
    const status = statusOf(persisted.value);
    if (context.owner !== owner || status === "expired") return undefined;
    if (isFinished(status) && context.expiresAt <= this.deps.clock.now()) return undefined;
    return { context, status };
  }

  /**
   * Stops a job of its owner's that has not finished, answering `response` in its place. A job
   * another node runs is told through the database and waited for: undefined when it has not
   * stopped within SIGNAL_WAIT_MS (its node busy or gone until another claims it), as for an
   * unknown job.
   */
  async cancel(id: string, owner: string | undefined, response: StoredResponse): Promise<FoundJob | undefined> {
    const found = await this.find(id, owner);
    if (!found || isFinished(found.status)) return found;
    const cancel: CancelJob = { type: "cancel", at: this.deps.clock.now(), response };
    const actor = this.actors.get(id);
    if (actor) {
      actor.send(cancel);
      const after = actor.getSnapshot();
      return { context: after.context, status: statusOf(after.value) };
    }
    await this.actors.signal(id, cancel);
    return this.once(() => this.find(id, owner), (job) => job !== undefined && isFinished(job.status));
  }

  /**
   * Forgets a job of its owner's, stopping its run if it has one: it is neither shown nor resumed
   * again. False when the node that runs it (or keeps its result) did not forget it within
   * SIGNAL_WAIT_MS.
   */
  async discard(id: string, owner: string | undefined): Promise<boolean> {
    if (!(await this.find(id, owner))) return true;
    await this.actors.signal(id, { type: "discard" });
    const gone = async () => (await this.find(id, owner)) === undefined;
    return (await this.once(gone, (isGone) => isGone)) === true;
  }

  resume(): Promise<number> {
    return this.actors.resume();
  }

  stop(): Promise<void> {
    return this.actors.stop();
  }

  /** `read()`'s answer once `done` says so, reading again every SIGNAL_CHECK_MS; undefined after SIGNAL_WAIT_MS. */
  private async once<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T | undefined> {
    for (const deadline = Date.now() + SIGNAL_WAIT_MS; Date.now() < deadline; await Bun.sleep(SIGNAL_CHECK_MS)) {
      const value = await read();
      if (done(value)) return value;
    }
    return undefined;
  }

  private async runJob(jobId: string, sealedRequest: string, signal: AbortSignal): Promise<JobRun> {
    // A job restored mid-run takes a worker again before it runs.
    await this.workers.acquire(WORKERS, jobId, signal);
    try {
      const response = await this.replay(jobId, sealedRequest, signal).catch(internalFailure);
      if (signal.aborted) throw signal.reason;
      return { response, finishedAt: this.deps.clock.now() };
    } finally {
      this.workers.release(WORKERS, jobId);
    }
  }

  private async replay(jobId: string, sealedRequest: string, signal: AbortSignal): Promise<StoredResponse> {
    const stored = JSON.parse(this.deps.secrets.open(sealedRequest)) as StoredRequest;
    return storeResponse(await this.deps.run(replayRequest(stored, jobId, signal)));
  }

  private async notify(jobId: string): Promise<void> {
    const snapshot = this.actors.get(jobId)?.getSnapshot();
    const response = snapshot?.context.response;
    if (!snapshot || !response) return;
    const { context } = snapshot;
    const status = statusOf(snapshot.value) === "completed" ? "completed" : "failed";
    await this.deps.jobFinished({
      id: context.id,
      requestType: context.requestType,
      status,
      statusCode: response.status,
      resultUrl: context.resultUrl,
      resultExpiresAt: new Date(context.expiresAt),
      completedAt: new Date(context.completedAt ?? context.expiresAt),
      ...(status === "completed" ? { response: resultOf(response) } : { error: resultOf(response) }),
      webhook: context.webhook,
    });
  }
}
