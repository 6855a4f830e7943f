/** The environment `claude -p` runs in: the gateway's /anthropic mount its only reachable address, everything else into the trap proxy. */
export function claudeEnv(options: { gatewayUrl: string; apiKey: string; model: string; home: string; trapUrl: string }): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: options.home,
    ANTHROPIC_BASE_URL: `${options.gatewayUrl}/anthropic`,
    ANTHROPIC_API_KEY: options.apiKey,
    ANTHROPIC_SMALL_FAST_MODEL: options.model,
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    HTTP_PROXY: options.trapUrl,
    HTTPS_PROXY: options.trapUrl,
    NO_PROXY: "127.0.0.1",
  };
}
