/**
 * Veo on Vertex AI, in the Gemini API's shapes (formats/genai/vertex-video-operation.ts), so a
 * client polls and reads a video the same way on either: its poll, a GET on the operation's
 * Gemini-API name, is Vertex's `:fetchPredictOperation`.
 */
import { operationNameParts } from "../../formats/genai/video-operation";
import type { ProviderObjectBody } from "../../../upstream/provider-objects";

/** The model and operation a poll's path (`/v1beta/models/{model}/operations/{id}`) names. */
export const polledOperation = (body: Record<string, unknown>) => operationNameParts(decodeURIComponent((body as ProviderObjectBody).path));
