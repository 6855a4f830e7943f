import type { WireFormat } from "../operations";
import { openAIFormat } from "./openai";
import type { FormatCodec } from "./types";

/** Every wire format the gateway can translate; a format missing here passes through only. */
export const FORMATS: { readonly [F in WireFormat]?: FormatCodec } = {
  openai: openAIFormat,
};
