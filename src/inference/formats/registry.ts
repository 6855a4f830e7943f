import type { WireFormat } from "../../upstream/operations";
import { anthropicFormat } from "./anthropic";
import { bedrockFormat } from "./bedrock";
import { cohereFormat } from "./cohere";
import { genaiFormat } from "./genai";
import { openAIFormat } from "./openai";
import type { FormatCodec } from "./types";

/** Every wire format the gateway can translate; a format missing here passes through only. */
export const FORMATS: { readonly [F in WireFormat]?: FormatCodec } = {
  anthropic: anthropicFormat,
  bedrock: bedrockFormat,
  cohere: cohereFormat,
  genai: genaiFormat,
  openai: openAIFormat,
};
