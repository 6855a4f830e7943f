import { Elysia, type TSchema, t } from "elysia";
import type { ProviderStore } from "../../provider-registry/store";
import type { Inference } from "../handle";
import { modelInPath, providerListing } from "../model-ref";
import type { Operation } from "../../upstream/operations";
import { openRealtimeSession } from "../realtime/session";
import { speechUsage } from "../request-usage";
import { ChatCompletionBody, CompletionBody, EmbeddingBody, ImageBody, ImageEditForm, type OpenAIBody, openAIHandler, SpeechBody, TranscriptionForm, TranslationForm } from "./openai-bodies";
import { pathParams } from "./path-params";

const DeploymentParams = pathParams({ deployment: t.String({ minLength: 1 }) });

/** The route's body without `model`: Azure names the deployment in the path. */
const withoutModel = <T extends TSchema>(schema: T) => t.Omit(schema, ["model"]);

/**
 * What a deployment name reaches: `provider/model` escaped into it names both; a name a key
 * lists goes to that provider; any other goes to Azure when it is configured (the client speaks
 * Azure), else to the mount's provider.
 */
function modelOfDeployment(store: ProviderStore, deployment: string, mountProvider: string): string {
  const name = modelInPath(deployment);
  const slash = name.indexOf("/");
  if (slash > 0 && store.get(name.slice(0, slash))) return name;
  const provider = providerListing(store, name) ?? (store.get("azure") ? "azure" : mountProvider);
  return `${provider}/${name}`;
}

/**
 * Azure OpenAI's own paths, for clients built for it (the `AzureOpenAI` SDK, LangChain's
 * AzureChatOpenAI): `{prefix}/openai/deployments/{deployment}/chat/completions?api-version=…`,
 * the deployment standing for the model, the version ignored. Bodies are OpenAI's. The Realtime
 * API's socket is `{prefix}/openai/realtime?deployment=…`.
 */
export function azureDeploymentsMount(prefix: string, inference: Inference, mountProvider: string) {
  const handle = openAIHandler(inference, mountProvider);
  const call = (operation: Operation, options: { stream?: (body: Record<string, unknown>) => boolean } = {}) =>
    async ({ params, body, request }: { params: { deployment: string }; body: Record<string, unknown>; request: Request }) => {
      const model = modelOfDeployment(inference.providers, params.deployment, mountProvider);
      const usage = operation === "speech" ? await speechUsage(String(body.input)) : undefined;
      return handle(operation, { ...body, model } as OpenAIBody, request, { stream: options.stream?.(body), usage });
    };
  const formStream = (body: Record<string, unknown>) => body.stream === "true";
  // Azure's Realtime API, as `OpenAIRealtimeWebSocket.azure` opens it: the deployment in the query.
  const realtime = new Elysia({ name: `azure-realtime:${prefix}` }).get(`${prefix}/openai/realtime`, ({ request, server, query }) => {
    const model = query.deployment ? modelOfDeployment(inference.providers, query.deployment, mountProvider) : undefined;
    return openRealtimeSession(inference, request, server!, { model, param: "deployment", mountProvider });
  });
  const deployments = new Elysia({ name: `azure-deployments:${prefix}`, prefix: `${prefix}/openai/deployments/:deployment` })
    .guard({ params: DeploymentParams })
    .post("/chat/completions", call("chat"), { body: withoutModel(ChatCompletionBody) })
    .post("/completions", call("text_completion"), { body: withoutModel(CompletionBody) })
    .post("/embeddings", call("embedding"), { body: withoutModel(EmbeddingBody) })
    .post("/audio/speech", call("speech", { stream: () => true }), { body: withoutModel(SpeechBody) })
    .post("/audio/transcriptions", call("transcription", { stream: formStream }), { body: withoutModel(TranscriptionForm) })
    .post("/audio/translations", call("translation", { stream: () => false }), { body: withoutModel(TranslationForm) })
    .post("/images/generations", call("image_generation"), { body: withoutModel(ImageBody) })
    .post("/images/edits", call("image_edit", { stream: formStream }), { body: withoutModel(ImageEditForm) });
  return new Elysia().use(realtime).use(deployments);
}
