import type { GatewayConfig } from "../src/config/schema";

/** The gateway the bench measures: an `openai` and an `anthropic` provider whose upstream is the bench mock. */
export function benchGatewayConfig(mockUrl: string): GatewayConfig {
  return {
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
