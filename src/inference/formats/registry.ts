import type { WireFormat } from "../operations";
import { openAIFormat } from "./openai";
import type { FormatCodec } from "./types";

export const FORMATS: Record<WireFormat, FormatCodec> = {
  openai: openAIFormat,
};
