import { GatewayError } from "../http/errors";
import type { UpstreamTarget } from "../upstream/adapter";
import { sendUpstream } from "../upstream/fetch";
import { effectiveNetwork, type RuntimeKey, type RuntimeProvider } from "./runtime";
import { unresolvedKeyDescription, unsetKeyVariable } from "./unresolved-keys";

export const HEALTHY = "success";
export const LISTING_FAILED = "list_models_failed";
export const UNCHECKED = "unknown";
export const KEY_UNRESOLVED = "key_unresolved";

export interface KeyHealth {
  status: string;
  description: string;
  /** The models the key reached, as the provider names them. */
  models: string[];
}

/** A check never holds an API call longer than this, whatever the provider's own timeout. */
const CHECK_TIMEOUT_SECONDS = 10;

function targetOf(provider: RuntimeProvider, key: RuntimeKey): UpstreamTarget {
  return {
    baseUrl: provider.baseUrl,
    network: provider.network,
    clientHeaders: new Headers(),
    key: { id: key.id, secret: provider.readEnv(key.config.value ?? ""), config: key.config },
    model: "",
    readEnv: provider.readEnv,
    outbound: provider.outbound,
  };
}

const failed = (reason: string): KeyHealth => ({ status: LISTING_FAILED, description: `listing models failed: ${reason}`, models: [] });

async function listModels(provider: RuntimeProvider, key: RuntimeKey): Promise<string[] | GatewayError> {
  const listing = provider.adapter.listModels!;
  const target = targetOf(provider, key);
  const call = listing.call(target);
  const authorized = provider.adapter.authorizeCall ? await provider.adapter.authorizeCall(call, target) : call;
  if (authorized instanceof GatewayError) return authorized;
  const timeout = Math.min(CHECK_TIMEOUT_SECONDS, effectiveNetwork(provider.network).default_request_timeout_in_seconds);
  const reply = await sendUpstream(authorized, false, timeout, new AbortController().signal, target);
  if (!reply.ok) return reply.error;
  if (!("body" in reply)) return new GatewayError({ status: 502, errorType: "provider_bad_response", message: "the model list is not JSON" });
  return listing.ids(JSON.parse(reply.body));
}

/**
 * Lists the provider's models with one key: `success` with what it reaches, or
 * `list_models_failed` saying why (the upstream's status and message, a network failure, a token
 * endpoint that refused). A provider with no model listing leaves the key unchecked; a key whose
 * `env.NAME` variable is not set is `key_unresolved`, and a warning says so.
 */
export async function checkKeyHealth(provider: RuntimeProvider, key: RuntimeKey): Promise<KeyHealth> {
  const unset = unsetKeyVariable(key);
  if (unset) {
    const description = unresolvedKeyDescription(provider.name, key, unset);
    console.warn(`provider registered: ${description}`);
    return { status: KEY_UNRESOLVED, description, models: [] };
  }
  if (!provider.adapter.listModels) return { status: UNCHECKED, description: `provider '${provider.name}' offers no model listing to check keys with`, models: [] };
  try {
    const models = await listModels(provider, key);
    if (models instanceof GatewayError) return failed(`${models.status} ${models.message}`);
    return { status: HEALTHY, description: `listed ${models.length} model${models.length === 1 ? "" : "s"}`, models };
  } catch (error) {
    return failed((error as Error).message);
  }
}
