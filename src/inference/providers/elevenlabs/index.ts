import { badRequest } from "../../../http/errors";
import type { Operation } from "../../../upstream/operations";
import { jsonReply, replyJson } from "../media-replies";
import { multipartBody } from "../multipart";
import { requireBaseUrl } from "../openai-compatible";
import type { ProviderAdapter, UpstreamTarget } from "../../../upstream/adapter";

/** OpenAI's `response_format` as ElevenLabs' `output_format`. */
const OUTPUT_FORMATS: Record<string, string> = { mp3: "mp3_44100_128", opus: "opus_48000_128", pcm: "pcm_24000", wav: "wav_44100" };

function headersOf(target: UpstreamTarget, json: boolean): Record<string, string> {
  const headers: Record<string, string> = { ...(json ? { "content-type": "application/json" } : {}), ...target.network.extra_headers };
  if (target.key?.secret) headers["xi-api-key"] = target.key.secret;
  return headers;
}

/** OpenAI's `voice` names an ElevenLabs voice id, as a string or `{id}`. */
function voiceOf(body: Record<string, unknown>): string {
  const voice = typeof body.voice === "string" ? body.voice : (body.voice as { id?: unknown } | undefined)?.id;
  if (typeof voice !== "string" || !voice) throw badRequest("ElevenLabs needs a voice id as `voice`", "voice");
  return voice;
}

function speechCall(target: UpstreamTarget, body: Record<string, unknown>) {
  const query = new URLSearchParams({ output_format: OUTPUT_FORMATS[String(body.response_format ?? "mp3")] ?? OUTPUT_FORMATS.mp3! });
  const settings = typeof body.speed === "number" ? { voice_settings: { speed: body.speed } } : {};
  return {
    url: `${requireBaseUrl(target)}/text-to-speech/${encodeURIComponent(voiceOf(body))}/stream?${query}`,
    headers: headersOf(target, true),
    body: JSON.stringify({ text: body.input, model_id: target.model, ...settings }),
  };
}

/**
 * ElevenLabs speech: OpenAI's speech request becomes text-to-speech on the voice it names,
 * streamed back as the audio arrives; transcriptions go to speech-to-text (`model_id`, multipart)
 * and come back as OpenAI's `{text}`. The key travels as `xi-api-key`.
 */
export const elevenlabs: ProviderAdapter = {
  format: "openai",
  operations: new Set<Operation>(["speech", "transcription"]),
  keyOptional: false,
  buildCall(operation, target, body) {
    if (operation === "speech") return speechCall(target, body);
    // Only what speech-to-text takes: OpenAI's other fields (response_format, prompt) have no counterpart.
    const form = multipartBody({ file: body.file, model_id: target.model, ...(typeof body.language === "string" ? { language_code: body.language } : {}) });
    return { url: `${requireBaseUrl(target)}/speech-to-text`, headers: headersOf(target, false), body: form };
  },
  async readReply(operation, reply) {
    if (operation !== "transcription") return reply;
    const result = await replyJson<{ text?: string; language_code?: string }>(reply);
    return jsonReply(reply, { text: result.text ?? "", language: result.language_code });
  },
  listModels: {
    call: (target) => ({ url: `${requireBaseUrl(target)}/models`, method: "GET", headers: headersOf(target, false) }),
    ids: (body) => (Array.isArray(body) ? body : []).map((model: { model_id?: unknown }) => model.model_id).filter((id): id is string => typeof id === "string"),
  },
};
