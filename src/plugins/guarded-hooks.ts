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

function guardInference(name: string, hooks: PluginHooks, policy: FailurePolicy): InferenceHooks {
  const admit = hooks.admit?.bind(hooks);
  const transformResponse = hooks.transformResponse?.bind(hooks);
  const settle = hooks.settle?.bind(hooks);
  const inference: InferenceHooks = { name };
  if (admit) {
    inference.admit = async (context) => {
      try {
        return await admit(context);
      } catch (error) {
        policy.rethrow("admit", error);
      }
    };
  }
  if (transformResponse) {
    inference.transformResponse = async (context, response) => {
      try {
        return await transformResponse(context, response);
      } catch (error) {
        return policy.replace("transformResponse", error, response)!;
      }
    };
  }
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
  if (onHttpRequest) {
    http.onHttpRequest = async (request) => {
      try {
        return await onHttpRequest(request);
      } catch (error) {
        return policy.replace("onHttpRequest", error);
      }
    };
  }
  if (onHttpResponse) {
    http.onHttpResponse = async (request, response) => {
      try {
        return await onHttpResponse(request, response);
      } catch (error) {
        return policy.replace("onHttpResponse", error, response);
      }
    };
  }
  return http;
}

/** A plugin's hooks as the pipeline and the transport run them, with its failure policy applied. */
export function guardHooks(name: string, hooks: PluginHooks, failClosed: boolean, log: PluginLog): GuardedHooks {
  const policy = new FailurePolicy(name, failClosed, log);
  return { inference: guardInference(name, hooks, policy), http: guardHttp(hooks, policy) };
}
