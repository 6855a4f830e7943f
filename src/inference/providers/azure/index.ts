import type { OAuthKeyConfig } from "../../../config/sections/providers";
import { openAIBatches } from "../../batches/openai";
import { isProviderObjectOperation, type Operation } from "../../../upstream/operations";
import { withoutStreamOptions } from "../../formats/openai/stream-usage";
import { definedFieldsOf, OPENAI_PATHS, openAIModelListing, openAIPayload, OPENAI_OBJECT_OPERATIONS, realtimeHandshake, TEXT_OPERATIONS } from "../openai-compatible";
import { providerObjectCall } from "../provider-object-call";
import { mintsBearer, withMintedBearer } from "../oauth";
import type { ProviderAdapter, UpstreamTarget } from "../../../upstream/adapter";

const DEFAULT_API_VERSION = "2024-10-21";
/** The first version that takes `stream_options`; earlier ones refuse it. */
const STREAM_OPTIONS_SINCE = "2024-09-01";
const COGNITIVE_SERVICES_SCOPE = "https://cognitiveservices.azure.com/.default";

const configOf = (target: UpstreamTarget) => target.key?.config.azure_key_config;

function endpointOf(target: UpstreamTarget): string {
  const endpoint = (configOf(target)?.endpoint ?? target.baseUrl ?? "").replace(/\/+$/, "");
  if (!endpoint) throw new Error("azure key has no azure_key_config.endpoint");
  return endpoint;
}

const apiVersionOf = (target: UpstreamTarget) => configOf(target)?.api_version ?? DEFAULT_API_VERSION;

/** `{endpoint}/openai{path}?api-version=...`, the version the key names or the default. */
function azureUrl(target: UpstreamTarget, path: string, query: Record<string, string> = {}): string {
  const params = new URLSearchParams({ ...query, "api-version": apiVersionOf(target) });
  return `${endpointOf(target)}/openai${path}?${params}`;
}

function keyHeaders(target: UpstreamTarget): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json", ...target.network.extra_headers };
  if (target.key?.secret) headers["api-key"] = target.key.secret;
  return headers;
}

/**
 * Microsoft Entra ID client credentials from azure_key_config, for a key with no value and no
 * oauth_key_config. `AZURE_AUTHORITY_HOST` replaces the public cloud's authority, as in Azure's SDKs.
 */
function entraConfig(target: UpstreamTarget): OAuthKeyConfig | undefined {
  const config = configOf(target);
  if (target.key?.secret || !config?.tenant_id || !config.client_id || !config.client_secret) return undefined;
  const authority = (process.env.AZURE_AUTHORITY_HOST ?? "https://login.microsoftonline.com").replace(/\/+$/, "");
  return {
    grant_type: "client_credentials",
    token_url: `${authority}/${encodeURIComponent(config.tenant_id)}/oauth2/v2.0/token`,
    client_id: config.client_id,
    client_secret: config.client_secret,
    auth_style: "body",
    scopes: config.scopes?.length ? config.scopes : [COGNITIVE_SERVICES_SCOPE],
  };
}

const MEDIA_OPERATIONS: readonly Operation[] = ["speech", "transcription", "translation", "image_generation", "image_edit", "realtime"];
const batches = openAIBatches((target, path, query) => azureUrl(target, path, query), keyHeaders);

/**
 * Where a call goes. The Responses API is not under a deployment: it lives on Azure's v1 surface,
 * which takes no dated api-version and names the deployment in the body's `model`.
 */
function callUrl(operation: Operation, target: UpstreamTarget, deployment: string): string {
  if (operation === "responses") return `${endpointOf(target)}/openai/v1${OPENAI_PATHS.responses}`;
  return azureUrl(target, `/deployments/${encodeURIComponent(deployment)}${OPENAI_PATHS[operation]!}`);
}

/**
 * Azure OpenAI: the model names a deployment (through the key's `deployments` map, else itself),
 * the version is a query parameter, the key travels as `api-key`; a key without a value sends a
 * bearer minted from its oauth_key_config or its Entra ID client credentials.
 */
export const azure: ProviderAdapter = {
  format: "openai",
  operations: new Set<Operation>([...TEXT_OPERATIONS, ...OPENAI_OBJECT_OPERATIONS, ...MEDIA_OPERATIONS, ...batches.operations]),
  keyOptional: false,
  buildCall(operation, target, body) {
    if (isProviderObjectOperation(operation)) return providerObjectCall(`${endpointOf(target)}/openai/v1`, operation, body, keyHeaders(target));
    const deployment = configOf(target)?.deployments?.[target.model] ?? target.model;
    // The Realtime API is on the v1 surface too, the deployment named as the model.
    if (operation === "realtime") return realtimeHandshake(`${endpointOf(target)}/openai/v1`, deployment, body, keyHeaders(target));
    const sent = apiVersionOf(target) < STREAM_OPTIONS_SINCE ? withoutStreamOptions(body) : body;
    const model = operation === "responses" ? deployment : target.model;
    return { url: callUrl(operation, target, deployment), ...openAIPayload(operation, sent, model, keyHeaders(target)) };
  },
  translatedBody: definedFieldsOf,
  authorizeCall: (call, target) => withMintedBearer(call, target, mintsBearer(target) ?? entraConfig(target)),
  listModels: openAIModelListing((target) => azureUrl(target, "/models"), keyHeaders),
  batches,
};
