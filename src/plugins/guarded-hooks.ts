import { GatewayError } from "../http/errors";
import type { InferenceHooks } from "../inference/hooks";
import type { PluginLog } from "./plugin-log";
import type { HttpHooks, PluginHooks } from "./types";

export interface GuardedHooks {
  inference: InferenceHooks;
  http: HttpHooks;
}

/**
 * What a hook's failure turns into. A GatewayError is the plugin's answer (a rejection) and
 * passes through; any other error is logged, then skipped (fail open) or turned into a 500
 * (fail closed). A response whose body the failing hook already read cannot be passed on, so
 * that case fails closed too.
 */
class FailurePolicy {
  constructor(
    private readonly name: string,
    private readonly failClosed: boolean,
    private readonly log: PluginLog,
  ) {}

  /** Before the upstream call: throws when the request must stop. */
  rethrow(stage: string, error: unknown): void {
    if (error instanceof GatewayError) throw error;
    this.log.error(`${stage} failed`, error);
    if (this.failClosed) throw this.failure();
  }

  /** Around a response: the response to send instead (undefined: carry on without this plugin). */
  replace(stage: string, error: unknown, response?: Response): Response | undefined {
    if (error instanceof GatewayError) return error.toResponse();
    this.log.error(`${stage} failed`, error);
    return this.failClosed || response?.bodyUsed ? this.failure().toResponse() : response;
  }

  logOnly(stage: string, error: unknown): void {
    this.log.error(`${stage} failed`, error);
  }

  private failure() {
    return new GatewayError({ status: 500, errorType: "gateway_plugin_failed", message: `plugin '${this.name}' failed and is configured to fail closed` });
  }
}

/**
 * Calls a hook, a failure (thrown or rejected) handed to `onError`. A synchronous result stays
 * synchronous, and only a promise gets a handler: the hooks run on every request, most answer at once.
 */
function called<A, T>(hook: (argument: A) => T | Promise<T>, argument: A, onError: (error: unknown) => T): T | Promise<T> {
  try {
    const result = hook(argument);
    return result instanceof Promise ? result.catch(onError) : result;
  } catch (error) {
    return onError(error);
  }
}

/** Calls a hook on a response; on a failure, the response the policy gives in its place (given the response, it always gives one). */
function calledOnResponse<A, T extends Response | void>(hook: (first: A, response: Response) => T | Promise<T>, first: A, response: Response, stage: string, policy: FailurePolicy): T | Response | Promise<T | Response> {
  try {
    const result = hook(first, response);
    return result instanceof Promise ? result.catch((error: unknown) => policy.replace(stage, error, response)!) : result;
  } catch (error) {
    return policy.replace(stage, error, response)!;
  }
}

function guardInference(name: string, hooks: PluginHooks, policy: FailurePolicy): InferenceHooks {
  const admit = hooks.admit?.bind(hooks);
  const transformResponse = hooks.transformResponse?.bind(hooks);
  const settle = hooks.settle?.bind(hooks);
  const inference: InferenceHooks = { name };
  const admitFailed = (error: unknown) => policy.rethrow("admit", error);
  if (admit) inference.admit = (context) => called(admit, context, admitFailed);
  if (transformResponse) inference.transformResponse = (context, response) => calledOnResponse(transformResponse, context, response, "transformResponse", policy);
  if (settle) {
    inference.settle = (context, outcome) => {
      try {
        settle(context, outcome);
      } catch (error) {
        policy.logOnly("settle", error);
      }
    };
  }
  return inference;
}

function guardHttp(hooks: PluginHooks, policy: FailurePolicy): HttpHooks {
  const onHttpRequest = hooks.onHttpRequest?.bind(hooks);
  const onHttpResponse = hooks.onHttpResponse?.bind(hooks);
  const http: HttpHooks = {};
  const requestFailed = (error: unknown) => policy.replace("onHttpRequest", error);
  if (onHttpRequest) http.onHttpRequest = (request) => called(onHttpRequest, request, requestFailed);
  if (onHttpResponse) http.onHttpResponse = (request, response) => calledOnResponse(onHttpResponse, request, response, "onHttpResponse", policy);
  return http;
}

/** A plugin's hooks as the pipeline and the transport run them, with its failure policy applied. */
export function guardHooks(name: string, hooks: PluginHooks, failClosed: boolean, log: PluginLog): GuardedHooks {
  const policy = new FailurePolicy(name, failClosed, log);
  return { inference: guardInference(name, hooks, policy), http: guardHttp(hooks, policy) };
}
