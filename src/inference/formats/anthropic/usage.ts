import type { Usage } from "../../canonical";
import type { MessagesUsage } from "./wire";

/**
 * Anthropic counts cache reads and writes apart from `input_tokens`; OpenAI's `prompt_tokens`
 * includes them, with the cached part broken out. Both directions keep every counter.
 */
export function usageToCanonical(usage: Partial<MessagesUsage>): Usage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const cacheWrite1h = usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  const promptTokens = (usage.input_tokens ?? 0) + cacheRead + cacheWrite;
  const completionTokens = usage.output_tokens ?? 0;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cacheRead, cache_write_tokens: cacheWrite, ...(cacheWrite1h ? { cache_write_1h_tokens: cacheWrite1h } : {}) },
    ...(usage.output_tokens_details ? { completion_tokens_details: { reasoning_tokens: usage.output_tokens_details.thinking_tokens } } : {}),
  };
}

export function usageFromCanonical(usage: Usage | null | undefined): MessagesUsage {
  const details = usage?.prompt_tokens_details;
  const cacheRead = details?.cached_tokens ?? 0;
  const cacheWrite = details?.cache_write_tokens ?? 0;
  const cacheWrite1h = details?.cache_write_1h_tokens ?? 0;
  const reasoning = usage?.completion_tokens_details?.reasoning_tokens;
  return {
    input_tokens: Math.max(0, (usage?.prompt_tokens ?? 0) - cacheRead - cacheWrite),
    output_tokens: usage?.completion_tokens ?? 0,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
    cache_creation: { ephemeral_5m_input_tokens: Math.max(0, cacheWrite - cacheWrite1h), ephemeral_1h_input_tokens: cacheWrite1h },
    ...(reasoning === undefined ? {} : { output_tokens_details: { thinking_tokens: reasoning } }),
  };
}
