import type { Static } from "@sinclair/typebox";
import type { Provider, ProviderList } from "./replies";

/** What the document shows for the provider routes: OpenAI with one key, its secret redacted as every reply redacts it. */

const openAI: Static<typeof Provider> = {
  provider: "openai",
  keys: [
    {
      id: "prod-key",
      name: "production",
      value: "****1234",
      models: ["gpt-4o-mini", "gpt-4o"],
      enabled: true,
      weight: 1,
      config_hash: "fc8e30ba29de9d0f488fa1b69b03c75f5458a489c7398de099a8cb8905a413cf",
      status: "success",
      description: "",
      health: { state: "closed", recent_failures: 0, in_flight: 0, latency_ms: 412 },
    },
  ],
  key_optional: false,
  panic: { requests: 0 },
  network_config: { default_request_timeout_in_seconds: 60, max_retries: 2 },
  created_at: "2026-12-01T09:00:00.000Z",
  updated_at: "2026-12-01T09:00:00.000Z",
};

export const providerExample = openAI;
export const providerListExample: Static<typeof ProviderList> = { providers: [openAI] };
