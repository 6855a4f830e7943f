import type { Static, TSchema } from "@sinclair/typebox";
import type { PermissionName } from "../../access/permissions";
import type { StoredWarpConfig } from "../config/schema";

/** What every tool call runs with. */
export interface ToolContext {
  now: Date;
  config: StoredWarpConfig;
  /** Aborts when the chat ends early (the client left). */
  signal: AbortSignal;
}

/**
 * A read-only tool the model may call. `parameters` is both the JSON schema the model is shown
 * and the check its arguments pass before `run` sees them.
 */
export interface WarpTool<Args extends TSchema = TSchema> {
  name: string;
  description: string;
  parameters: Args;
  /** The telemetry the tool reads: the agent offers it only to callers holding this permission. */
  permission: PermissionName;
  run(args: Static<Args>, context: ToolContext): Promise<unknown>;
}

/** Keeps each tool's argument type while listing tools of different argument shapes together. */
export const defineTool = <Args extends TSchema>(tool: WarpTool<Args>): WarpTool => tool as unknown as WarpTool;
