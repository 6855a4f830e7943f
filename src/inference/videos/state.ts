import { operationNameParts, unmadeShareOf, type VideoOperation } from "../formats/genai/video-operation";
import { objectIdOf } from "../kept-objects/object-keys";
import type { Operation } from "../../upstream/operations";
import type { VideoPoll } from "../../db/schema/types";

/** How a video being made stands, as a reply about it (its create, a read of it) says. */
export interface VideoState {
  /** Sora's video id, or the id of the Veo operation making the video. */
  id: string;
  status: "pending" | "made" | "failed";
  /** Of the videos paid for, the share not made: 1 for a failed video, a part for a Veo request some of whose videos were filtered out, else 0. */
  unmadeShare: number;
  /** How to read it again; undefined where its name does not say (a Veo operation named without its model). */
  poll?: VideoPoll;
}

/** The calls whose reply is a video being made: its create, and the reads that poll it. */
const SORA_CALLS: ReadonlySet<Operation> = new Set(["video_create", "video_remix", "video_edit", "video_extend", "video_retrieve"]);
const VEO_CALLS: ReadonlySet<Operation> = new Set(["video_generation", "gemini_operation_get"]);

/** Sora's creates answer the video (`queued`), polled until `completed` or `failed`; Veo's answer the operation making it. */
export function videoStateOf(operation: Operation, body: unknown): VideoState | undefined {
  if (SORA_CALLS.has(operation)) {
    const { id, status } = body as { id?: unknown; status?: unknown };
    if (typeof id !== "string" || id.length === 0) return undefined;
    const failed = status === "failed";
    return { id, status: failed ? "failed" : status === "completed" ? "made" : "pending", unmadeShare: failed ? 1 : 0, poll: { operation: "video_retrieve", params: { id } } };
  }
  if (!VEO_CALLS.has(operation)) return undefined;
  const veo = body as VideoOperation;
  if (typeof veo.name !== "string" || veo.name.length === 0) return undefined;
  const named = operationNameParts(veo.name);
  const poll: VideoPoll | undefined = named && { operation: "gemini_operation_get", params: named };
  if (!veo.done) return { id: objectIdOf(veo.name), status: "pending", unmadeShare: 0, poll };
  const unmadeShare = unmadeShareOf(veo);
  return { id: objectIdOf(veo.name), status: unmadeShare === 1 ? "failed" : "made", unmadeShare, poll };
}
