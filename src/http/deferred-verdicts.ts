import type { AnyElysia } from "elysia";
import type { Serving } from "./serving";

/** What a request hook decided: go on (no answer), answer with a Response, or refuse (what it threw). */
type Verdict = { answer: Response | undefined } | { refusal: unknown };

/**
 * Elysia makes every route's function async (a promise, a frame, a scope and a closure a request)
 * and awaits every onRequest hook as soon as one of them may answer later, which it reads from
 * the hook's source: `async`, `await`, or a `return` (or arrow) of a call's result. A hook that
 * has to wait on some requests only (the access guard on /api, the plugins' transport while a
 * plugin has HTTP hooks, an async job's submission) decides the others at once and, on those,
 * answers with `after`: a promise of the request's whole answer. Once the verdict is in, the
 * request goes through the app again, where the hook finds it with `has` and gives it with
 * `replay` at once (goes on, answers, or throws the refusal), so the routing, the other hooks and
 * the error handling are Elysia's own, as when the hook was awaited. Such a hook is marked with
 * `answeringAtOnce`, since its source returns a call.
 */
export class DeferredVerdicts {
  private readonly given = new WeakMap<Request, Verdict>();

  constructor(private readonly serving: Serving) {}

  /** Whether this request's verdict is in: the hook replays it instead of deciding again. */
  has(request: Request): boolean {
    return this.given.has(request);
  }

  /** The verdict given for the request: undefined to go on, the answer; a refusal is thrown. */
  replay(request: Request): Response | undefined {
    const verdict = this.given.get(request);
    if (verdict && "refusal" in verdict) throw verdict.refusal;
    return verdict?.answer;
  }

  /** The request's answer once `deciding` settles: the app's, the request taken again with its verdict in. */
  async after(request: Request, deciding: Promise<Response | undefined | void>): Promise<Response> {
    try {
      this.given.set(request, { answer: (await deciding) ?? undefined });
    } catch (refusal) {
      this.given.set(request, { refusal });
    }
    return this.serving.handle!(request);
  }
}

/**
 * Tells Elysia that the request hooks of `plugin` answer at once (what they return is the
 * answer, a promise of one from `DeferredVerdicts.after` included), so it neither awaits them
 * nor makes every route's function async for them; Elysia keeps what it read from a hook's
 * source on the hook itself, where this sets it.
 */
export function answeringAtOnce<Plugin extends AnyElysia>(plugin: Plugin): Plugin {
  for (const hook of plugin.event.request ?? []) {
    hook.isAsync = false;
    hook.hasReturn = true;
  }
  return plugin;
}
