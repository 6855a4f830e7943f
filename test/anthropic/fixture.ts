import OpenAI from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

export const ANTHROPIC_UPSTREAM_KEY = "sk-ant-upstream-secret-0001";
export const OPENAI_UPSTREAM_KEY = "sk-openai-upstream-secret-0001";

/** The function tool the mock Anthropic API calls when asked about the weather, as a Responses API client declares it. */
export const RESPONSES_WEATHER_TOOL: OpenAI.Responses.FunctionTool = { type: "function", name: "get_weather", description: "Current weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false };

/** The OpenAI SDK pointed at a gateway, failing at once instead of retrying. */
export const openAIClientOf = (gatewayUrl: string, apiKey = "unused") => new OpenAI({ baseURL: `${gatewayUrl}/v1`, apiKey, maxRetries: 0 });

export interface AnthropicFixture {
  gw: TestGateway;
  anthropicUpstream: MockAnthropic;
  openaiUpstream: MockOpenAI;
  close(): Promise<void>;
}

/** The gateway with an `anthropic` provider on a mock Anthropic API and an `openai` provider on a mock OpenAI API. */
export async function startAnthropicFixture(): Promise<AnthropicFixture> {
  const anthropicUpstream = startMockAnthropic(ANTHROPIC_UPSTREAM_KEY);
  const openaiUpstream = startMockOpenAI();
  const gw = await startGateway({
    providers: {
      anthropic: { keys: [{ id: "ant-1", value: ANTHROPIC_UPSTREAM_KEY }], network_config: { base_url: anthropicUpstream.baseUrl } },
      openai: { keys: [{ id: "oai-1", value: OPENAI_UPSTREAM_KEY }], network_config: { base_url: openaiUpstream.baseUrl } },
    },
  });
  return {
    gw,
    anthropicUpstream,
    openaiUpstream,
    async close() {
      await gw.close();
      anthropicUpstream.stop();
      openaiUpstream.stop();
    },
  };
}
