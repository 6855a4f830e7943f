import type { Subprocess } from "bun";
import type { CounterHost, WorkerLink } from "./counter-host";
import type { WorkerMessage } from "./messages";

export interface SupervisorOptions {
  /** Workers to start besides the first process, numbered from 1. */
  count: number;
  /** The command a worker runs: this one's, listening where the first process does. */
  command: string[];
  /** The environment of worker `index`. */
  env: (index: number) => Record<string, string | undefined>;
  host: CounterHost;
}

/** A worker that dies waits this long before it starts again, doubling while it keeps dying young, up to the most. */
const FIRST_RESTART_DELAY_MS = 250;
const MOST_RESTART_DELAY_MS = 30_000;
/** A worker that ran this long died of something else than its start: its next restart waits the least again. */
const HEALTHY_RUN_MS = 10_000;

interface Worker {
  process: Subprocess<"ignore", "inherit", "inherit">;
  startedAt: number;
  restartDelayMs: number;
}

/**
 * The first process's workers (`server.workers`): each a gateway of its own on the same port,
 * counting budgets and rate limits through the first process's CounterHost. A worker that dies
 * is started again; `stop` passes SIGTERM on and waits for every worker to drain and exit.
 */
export class Supervisor {
  private readonly workers = new Map<number, Worker>();
  private stopping = false;

  constructor(private readonly options: SupervisorOptions) {}

  /** Starts the workers one after another, each once it listens: two starting at once would seed the database together. */
  async start(): Promise<void> {
    for (let index = 1; index <= this.options.count && !this.stopping; index++) await this.spawn(index, FIRST_RESTART_DELAY_MS);
  }

  /** Passes the signal on to every worker and waits for them all to exit; a second call passes it again, which cuts their drain short. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const { process } of this.workers.values()) process.kill("SIGTERM");
    await Promise.all([...this.workers.values()].map(({ process }) => process.exited));
  }

  private spawn(index: number, restartDelayMs: number): Promise<void> {
    const ready = Promise.withResolvers<void>();
    const link: WorkerLink = {
      send: (message) => {
        // A worker that has just exited and is not detached yet gets nothing.
        if (child.exitCode === null && child.signalCode === null) child.send(message);
      },
    };
    const child = Bun.spawn(this.options.command, {
      env: this.options.env(index),
      stdio: ["ignore", "inherit", "inherit"],
      serialization: "json",
      ipc: (message: WorkerMessage) => {
        if (message.type !== "ready") return this.options.host.answer(link, message);
        console.log(`gateway worker ${index} started (pid ${child.pid})`);
        ready.resolve();
      },
      onExit: (_, exitCode, signalCode) => {
        this.options.host.detach(link);
        const worker = this.workers.get(index);
        if (worker?.process !== child) return;
        // Stopped while it started: there is nothing to wait for.
        if (this.stopping) return ready.resolve();
        ready.reject(new Error(`gateway worker ${index} exited before it listened (${signalCode ?? `exit code ${exitCode}`})`));
        const delay = Date.now() - worker.startedAt >= HEALTHY_RUN_MS ? FIRST_RESTART_DELAY_MS : worker.restartDelayMs;
        console.error(`gateway worker ${index} (pid ${child.pid}) died (${signalCode ?? `exit code ${exitCode}`}); starting it again in ${delay} ms`);
        setTimeout(() => {
          if (!this.stopping) this.spawn(index, Math.min(delay * 2, MOST_RESTART_DELAY_MS)).catch((error) => console.error(error.message));
        }, delay);
      },
    });
    this.options.host.attach(link);
    this.workers.set(index, { process: child, startedAt: Date.now(), restartDelayMs });
    return ready.promise;
  }
}
