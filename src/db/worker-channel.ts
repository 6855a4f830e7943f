/** What a channel's thread answers to a request: its id, and a result or an error. */
export type ChannelReply = { id: number; result?: unknown; error?: string; code?: string };

/** The thread's error as an Error of this thread, with its code (SQLITE_BUSY, SQLITE_CONSTRAINT_NOTNULL, ...): what tells a busy database from a refused row. */
const errorOf = ({ error, code }: ChannelReply) => Object.assign(new Error(error), code === undefined ? {} : { code });

/**
 * Requests to a worker thread, each answered by id. The thread starts with the first request
 * and receives `open` first; it is referenced only while requests are in flight (an idle thread
 * must not keep a stopping process alive, and Bun delivers replies from an unreferenced worker
 * far more slowly). A thread that dies fails the requests it held; the next starts a fresh one,
 * unless the channel was closed.
 */
export function workerChannel<Request extends object>(script: URL, name: string, open: () => object) {
  let worker: Worker | undefined;
  let closed = false;
  let nextId = 0;
  const pending = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();

  function failPending(reason: string) {
    for (const waiter of pending.values()) waiter.reject(new Error(reason));
    pending.clear();
    worker = undefined;
  }

  function started(): Worker {
    if (worker) return worker;
    const thread = new Worker(script.href);
    thread.onmessage = ({ data }: MessageEvent<ChannelReply>) => {
      const waiter = pending.get(data.id);
      pending.delete(data.id);
      if (pending.size === 0) thread.unref();
      if (data.error !== undefined) waiter?.reject(errorOf(data));
      else waiter?.resolve(data.result);
    };
    thread.onerror = (event) => failPending(`the ${name} thread failed: ${event.message}`);
    thread.addEventListener("close", () => failPending(`the ${name} thread stopped`));
    thread.postMessage(open());
    worker = thread;
    return thread;
  }

  return {
    request(message: Request): Promise<unknown> {
      // A closed channel starts no thread again: one would outlive its gateway, on a database that may be gone.
      if (closed) return Promise.reject(new Error(`the ${name} is closed`));
      const id = nextId++;
      const thread = started();
      if (pending.size === 0) thread.ref();
      const answered = new Promise<unknown>((resolve, reject) => pending.set(id, { resolve, reject }));
      thread.postMessage({ ...message, id });
      return answered;
    },
    close() {
      closed = true;
      worker?.terminate();
      worker = undefined;
    },
  };
}

declare const self: Worker;

/**
 * The thread's side: the first message opens it and yields the request handler; every later
 * message is a request whose result (or error, an open that failed included) is posted back
 * under its id.
 */
export function serveChannel<Open, Request>(open: (message: Open) => ((request: Request) => unknown) | Promise<(request: Request) => unknown>) {
  let handler: Promise<(request: Request) => unknown> | undefined;
  self.onmessage = async ({ data }: MessageEvent<Open | (Request & { id: number })>) => {
    if (!handler) {
      handler = Promise.resolve(data as Open).then(open);
      return;
    }
    const { id } = data as { id: number };
    try {
      self.postMessage({ id, result: await (await handler)(data as Request) } satisfies ChannelReply);
    } catch (error) {
      const code = (error as { code?: unknown } | undefined)?.code;
      self.postMessage({ id, error: String(error), ...(typeof code === "string" ? { code } : {}) } satisfies ChannelReply);
    }
  };
}
