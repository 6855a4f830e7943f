import type { Operation } from "../../operations";
import { OPENAI_PATHS, withModel } from "../openai-compatible";
import type { ProviderAdapter } from "../types";

const DEFAULT_API_VERSION = "2024-10-21";

/** Azure OpenAI: the model names a deployment, the key travels as `api-key`, the version as a query parameter. */
export const azure: ProviderAdapter = {
  format: "openai",
  operations: new Set(Object.keys(OPENAI_PATHS) as Operation[]),
  keyOptional: false,
  buildCall(operation, target, body) {
    const config = target.key?.config.azure_key_config;
    const endpoint = (config?.endpoint ?? target.baseUrl ?? "").replace(/\/+$/, "");
    if (!endpoint) throw new Error("azure key has no azure_key_config.endpoint");
    const apiVersion = encodeURIComponent(config?.api_version ?? DEFAULT_API_VERSION);
    const deployment = encodeURIComponent(target.model);
    const url = `${endpoint}/openai/deployments/${deployment}${OPENAI_PATHS[operation]!}?api-version=${apiVersion}`;
    const headers: Record<string, string> = { "content-type": "application/json", ...target.network.extra_headers };
    if (target.key?.secret) headers["api-key"] = target.key.secret;
    return { url, headers, body: withModel(body, target.model) };
  },
};
