import type { GatewayConfig } from "../src/config/schema";

/** Unlocks the management API for the scenarios' setup steps. */
export const BENCH_SETUP_TOKEN = "bench-setup-token";

/**
 * Every export on (`BENCH_EXPORTS=1` in the gateway's environment, e.g. `bench/compare.ts A A
 * --b-env BENCH_EXPORTS=1`): OTLP spans and an HTTP log sink to the bench mock, and a file sink.
 */
function exportsConfig(mockUrl: string, workDir: string): Partial<GatewayConfig> {
  return {
    telemetry: { otlp: { endpoint: mockUrl } },
    log_sinks: [
      { type: "http", name: "bench-http", url: `${mockUrl}/log-sink`, secret: "whsec_YmVuY2gtc2luay1zZWNyZXQ=" },
      { type: "file", name: "bench-file", path: `${workDir}/sink/logs.jsonl` },
    ],
  };
}

/** The gateway the bench measures: an `openai` and an `anthropic` provider whose upstream is the bench mock. */
export function benchGatewayConfig(mockUrl: string, withExports?: { workDir: string }): GatewayConfig {
  return {
    ...(withExports ? exportsConfig(mockUrl, withExports.workDir) : {}),
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
