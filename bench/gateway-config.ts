import type { GatewayConfig } from "../src/config/schema";

/** The gateway the bench measures: one `openai` provider whose upstream is the bench mock. */
export function benchGatewayConfig(mockUrl: string): GatewayConfig {
  return {
    providers: {
      openai: {
        keys: [{ id: "bench", value: "sk-bench-upstream", models: ["*"] }],
        network_config: { base_url: `${mockUrl}/v1` },
      },
    },
  };
}
