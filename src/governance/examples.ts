import type { Static } from "@sinclair/typebox";
import type { CustomerList, TeamList, VirtualKey, VirtualKeyIssued, VirtualKeyList } from "./replies";
import type { VirtualKeyCreateInput } from "./schemas";

/** What the document shows for the virtual key routes: one key of a checkout service, as the gateway answers it. */

const checkoutKey: VirtualKey = {
  id: "0f6c1e9a-4a3b-4d0e-9b7a-2f1d8c5e3a71",
  name: "checkout-service",
  description: "The checkout team's backend",
  is_active: true,
  key_prefix: "sk-gw-oVs0laF-",
  team_id: "7d2b9f40-1c6e-4f8a-a3d5-6e0b4c9f2a18",
  customer_id: null,
  team: { id: "7d2b9f40-1c6e-4f8a-a3d5-6e0b4c9f2a18", name: "payments" },
  customer: null,
  provider_configs: [{ provider: "openai", weight: 1, allowed_models: ["gpt-4o-mini"], key_ids: [], budgets: [] }],
  budgets: [{ max_limit: 50, reset_duration: "1M", calendar_aligned: true }],
  rate_limit: { request_max_limit: 600, request_reset_duration: "1m" },
  forecasts: [
    {
      level: "virtual_key",
      owner_id: "0f6c1e9a-4a3b-4d0e-9b7a-2f1d8c5e3a71",
      owner_name: "checkout-service",
      max_limit: 50,
      reset_duration: "1M",
      current_usage: 31.2,
      resets_at: "2027-01-01T00:00:00.000Z",
      short_window: { spend_per_hour: 0.42, exhausted_at: "2026-12-09T16:45:42.857Z" },
      long_window: { spend_per_hour: 0.18, exhausted_at: "2026-12-12T08:26:40.000Z" },
      hours_left: 44.76,
    },
  ],
  mcp_configs: [],
  mcp_tool_search: null,
  agent_grants: [],
  allowed_prompts: [],
  session_budgets: null,
  resumable_streams: false,
  created_at: "2026-12-01T09:30:00.000Z",
  updated_at: "2026-12-01T09:30:00.000Z",
};

export const virtualKeyIssuedExample: Static<typeof VirtualKeyIssued> = {
  message: "Virtual key created successfully",
  virtual_key: { ...checkoutKey, value: "sk-gw-oVs0laF-tyTch_jqnKDJGPSLaFSyXdaJ" },
};

export const virtualKeyListExample: Static<typeof VirtualKeyList> = { virtual_keys: [checkoutKey], count: 1, total_count: 1, limit: 0, offset: 0 };

/** A create body: the key may call one model, spend $50 a calendar month and send 600 requests a minute. */
export const virtualKeyCreateExample: VirtualKeyCreateInput = {
  name: "checkout-service",
  description: "The checkout team's backend",
  provider_configs: [{ provider: "openai", allowed_models: ["gpt-4o-mini"] }],
  budgets: [{ max_limit: 50, reset_duration: "1M", calendar_aligned: true }],
  rate_limit: { request_max_limit: 600, request_reset_duration: "1m" },
};

/** A team of a customer, each with a monthly budget and when it runs out at the current rate. */
const paymentsForecast = {
  max_limit: 500,
  reset_duration: "1M",
  current_usage: 212.4,
  resets_at: "2027-01-01T00:00:00.000Z",
  short_window: { spend_per_hour: 3.1, exhausted_at: "2026-12-11T13:46:27.097Z" },
  long_window: { spend_per_hour: 1.9, exhausted_at: "2026-12-13T16:22:44.211Z" },
  hours_left: 92.77,
};

export const teamListExample: Static<typeof TeamList> = {
  teams: [
    {
      id: "7d2b9f40-1c6e-4f8a-a3d5-6e0b4c9f2a18",
      name: "payments",
      budgets: [{ max_limit: 500, reset_duration: "1M", calendar_aligned: true }],
      rate_limit: null,
      forecasts: [{ level: "team", owner_id: "7d2b9f40-1c6e-4f8a-a3d5-6e0b4c9f2a18", owner_name: "payments", ...paymentsForecast }],
      customer_id: "3a9e7c12-5b4d-4e8f-9c1a-0d6f2b8e4a57",
      customer: { id: "3a9e7c12-5b4d-4e8f-9c1a-0d6f2b8e4a57", name: "acme" },
      created_at: "2026-11-02T08:00:00.000Z",
      updated_at: "2026-11-02T08:00:00.000Z",
    },
  ],
  count: 1,
  total_count: 1,
  limit: 0,
  offset: 0,
};

export const customerListExample: Static<typeof CustomerList> = {
  customers: [
    {
      id: "3a9e7c12-5b4d-4e8f-9c1a-0d6f2b8e4a57",
      name: "acme",
      budgets: [{ max_limit: 500, reset_duration: "1M", calendar_aligned: true }],
      rate_limit: null,
      forecasts: [{ level: "customer", owner_id: "3a9e7c12-5b4d-4e8f-9c1a-0d6f2b8e4a57", owner_name: "acme", ...paymentsForecast }],
      created_at: "2026-11-01T08:00:00.000Z",
      updated_at: "2026-11-01T08:00:00.000Z",
    },
  ],
  count: 1,
  total_count: 1,
  limit: 0,
  offset: 0,
};
