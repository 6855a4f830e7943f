import type { GatewayConfig } from "../src/config/schema";

/** Unlocks the management API for the scenarios' setup steps. */
export const BENCH_SETUP_TOKEN = "bench-setup-token";

/** The gateway the bench measures: an `openai` and an `anthropic` provider whose upstream is the bench mock. */
export function benchGatewayConfig(mockUrl: string): GatewayConfig {
  return {
    setup_token: BENCH_SETUP_TOKEN,
    providers: {
      openai: {
        keys: [{ id: "bench", value: "sk-bench-upstream", models: ["*"] }],
        network_config: { base_url: `${mockUrl}/v1` },
      },
      anthropic: {
        keys: [{ id: "bench-anthropic", value: "sk-ant-bench-upstream", models: ["*"] }],
        network_config: { base_url: `${mockUrl}/v1` },
      },
    },
  };
}
