import { randomBytes } from "node:crypto";
import { sha256Hex } from "../../crypto/sha256-hex";
import { and, desc, eq } from "drizzle-orm";
import { fromPromise, waitFor } from "xstate";
import { type PerUserHeaderFlowState, perUserHeaderFlowMachine, type VerifyInput } from "../../../actors/per-user-header-flow";
import type { Clock } from "../../../actors/runtime/clock";
import { DurableActors } from "../../../actors/runtime/durable-actors";
import type { ActorSnapshotStore } from "../../../actors/runtime/snapshot-store";
import type { Database } from "../../db/client";
import { type McpPerUserHeaderFlowRow, mcpPerUserHeaderFlows } from "../../db/schema";
import { conflict } from "../../http/errors";
import type { CredentialOwner } from "./credentials";

const FLOW_ACTOR_KIND = "per-user-header-flow";

export interface StartedFlow {
  flowId: string;
  /** Returned once, in the authorize URL; only its hash is stored. */
  tempToken: string;
  expiresAt: Date;
}

export interface SubmissionOutcome {
  state: PerUserHeaderFlowState;
  /** Why verification failed, when it did. */
  refusal?: unknown;
}

/** Checks submitted values against the upstream; throws when they do not work. */
export type VerifyValues = (mcpClientId: string, values: Record<string, string>) => Promise<void>;

const flowRow = (id: string) => eq(mcpPerUserHeaderFlows.id, id);

/**
 * Per-user header flows: a row per flow (its triple, temp token hash and mirrored state) and a
 * durable per-user-header-flow actor. Submitted values are held in memory only while verified.
 */
export class PerUserHeaderFlowStore {
  private readonly actors: DurableActors<typeof perUserHeaderFlowMachine>;
  private readonly submitted = new Map<string, Record<string, string>>();
  private readonly refusals = new Map<string, unknown>();

  constructor(
    private readonly db: Database,
    snapshots: ActorSnapshotStore,
    private readonly ttlMs: number,
    private readonly clock: Clock,
    verify: VerifyValues,
  ) {
    const verifyValues = fromPromise<void, VerifyInput>(async ({ input }) => {
      const values = this.submitted.get(input.flowId);
      try {
        if (!values) throw new Error("the submission was interrupted; submit the values again");
        await verify(input.mcpClientId, values);
      } catch (error) {
        this.refusals.set(input.flowId, error);
        throw error;
      }
    });
    this.actors = new DurableActors({
      kind: FLOW_ACTOR_KIND,
      machine: snapshots.machines["per-user-header-flow"].provide({ actors: { verifyValues } }),
      store: snapshots,
      clock,
      // Updates only: a late write never brings back a row a consumption deleted.
      mirror: (id, snapshot) => [snapshot.value === "consumed" ? db.delete(mcpPerUserHeaderFlows).where(flowRow(id)) : db.update(mcpPerUserHeaderFlows).set({ state: String(snapshot.value) }).where(flowRow(id))],
    });
  }

  /** Restores the flows left pending by the last run (an overdue one expires at once). */
  resume(): Promise<number> {
    return this.actors.resume();
  }

  /** Opens a pending flow for (mode, identity, client); older flows of the same triple are dropped. */
  async start(owner: CredentialOwner, mcpClientId: string): Promise<StartedFlow> {
    const older = await this.db
      .select({ id: mcpPerUserHeaderFlows.id })
      .from(mcpPerUserHeaderFlows)
      .where(and(eq(mcpPerUserHeaderFlows.mode, owner.mode), eq(mcpPerUserHeaderFlows.identity, owner.identity), eq(mcpPerUserHeaderFlows.mcpClientId, mcpClientId)));
    for (const { id } of older) await this.remove(id);
    const flowId = crypto.randomUUID();
    const tempToken = `mcpft_${randomBytes(32).toString("base64url")}`;
    const createdAt = this.clock.now();
    const expiresAt = createdAt + this.ttlMs;
    await this.db.insert(mcpPerUserHeaderFlows).values({ id: flowId, ...owner, mcpClientId, tempTokenHash: sha256Hex(tempToken), state: "pending", expiresAt: new Date(expiresAt), createdAt: new Date(createdAt) });
    await this.actors.spawn(flowId, { flowId, ...owner, mcpClientId, createdAt, expiresAt });
    return { flowId, tempToken, expiresAt: new Date(expiresAt) };
  }

  /** Every flow still kept (pending, being verified, or expired), newest first. */
  list(): Promise<McpPerUserHeaderFlowRow[]> {
    return this.db.select().from(mcpPerUserHeaderFlows).orderBy(desc(mcpPerUserHeaderFlows.createdAt));
  }

  /** The owner's flow for the client (starting one drops the older ones, so there is one at most). */
  findFor(owner: CredentialOwner, mcpClientId: string): Promise<McpPerUserHeaderFlowRow | undefined> {
    return this.db
      .select()
      .from(mcpPerUserHeaderFlows)
      .where(and(eq(mcpPerUserHeaderFlows.mode, owner.mode), eq(mcpPerUserHeaderFlows.identity, owner.identity), eq(mcpPerUserHeaderFlows.mcpClientId, mcpClientId)))
      .get();
  }

  find(id: string): Promise<McpPerUserHeaderFlowRow | undefined> {
    return this.db.select().from(mcpPerUserHeaderFlows).where(flowRow(id)).get();
  }

  /** Where the flow stands now; a pending flow past its time is expired on the spot. */
  stateOf(row: McpPerUserHeaderFlowRow): PerUserHeaderFlowState {
    const actor = this.actors.get(row.id);
    const due = this.clock.now() >= row.expiresAt.getTime();
    if (actor?.getSnapshot().value === "pending" && due) actor.send({ type: "EXPIRE" });
    const state = (actor?.getSnapshot().value ?? row.state) as PerUserHeaderFlowState;
    return state === "pending" && due ? "expired" : state;
  }

  /** Verifies the values through the flow's actor and waits until it has settled. */
  async submit(row: McpPerUserHeaderFlowRow, values: Record<string, string>): Promise<SubmissionOutcome> {
    const actor = this.actors.get(row.id);
    if (!actor) return { state: this.stateOf(row) };
    if (actor.getSnapshot().value === "verifying") throw conflict("a submission for this flow is already being verified");
    this.submitted.set(row.id, values);
    try {
      actor.send({ type: "SUBMIT", at: this.clock.now() });
      const settled = await waitFor(actor, (snapshot) => snapshot.value !== "verifying");
      return { state: settled.value as PerUserHeaderFlowState, refusal: this.refusals.get(row.id) };
    } finally {
      this.submitted.delete(row.id);
      this.refusals.delete(row.id);
    }
  }

  /** Deletes a flow: its actor and snapshot, its row, and with the row its temp token. */
  async remove(id: string): Promise<void> {
    await this.actors.discard(id);
    await this.db.delete(mcpPerUserHeaderFlows).where(flowRow(id));
  }

  /** A deleted client takes its flows along (the rows go by cascade, the actors here). */
  async removeForClient(mcpClientId: string): Promise<void> {
    const rows = await this.db.select({ id: mcpPerUserHeaderFlows.id }).from(mcpPerUserHeaderFlows).where(eq(mcpPerUserHeaderFlows.mcpClientId, mcpClientId));
    for (const { id } of rows) await this.remove(id);
  }

  stop(): Promise<void> {
    return this.actors.stop();
  }
}
