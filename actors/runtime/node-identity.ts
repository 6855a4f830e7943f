import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../../src/db/client";
import { embeddedFilePath } from "../../src/db/embedded-file";
import { actorSnapshots, gatewayMeta } from "../../src/db/schema";
import { processStart } from "./process-start";

const randomSuffix = () => randomBytes(4).toString("hex");

/**
 * This node's id when GATEWAY_NODE_ID is unset, unique per process: on an embedded database the
 * host's name and a random suffix kept in a file beside it (a restarted node takes its actors
 * straight back), on a server the host's name and the process id (two processes on one host
 * never share one).
 */
export function defaultNodeId(env: Record<string, string | undefined>, databaseUrl: string): string {
  if (env.GATEWAY_NODE_ID) return env.GATEWAY_NODE_ID;
  const databaseFile = embeddedFilePath(databaseUrl);
  const perProcess = `${hostname()}-${process.pid}`;
  if (!databaseFile) return perProcess;
  const idFile = `${databaseFile}.node-id`;
  const kept = existsSync(idFile) ? readFileSync(idFile, "utf8").trim() : "";
  if (kept) return kept;
  const id = `${hostname()}-${randomSuffix()}`;
  try {
    writeFileSync(idFile, `${id}\n`);
    return id;
  } catch (error) {
    // A folder the gateway may not write in: unique all the same, only not kept across restarts.
    console.error(`the node id could not be kept in ${idFile} (${(error as Error).message}): this node runs as '${perProcess}'`);
    return perProcess;
  }
}

/** Who runs actors under a node id, and until when that holds without a renewal. */
interface Presence {
  instance: string;
  host: string;
  pid: number;
  /** When the process started (processStart): a later process given the same pid is not this one. */
  started?: string;
  alive_until: number;
}

const OWN_START = processStart(process.pid);

const presenceKey = (nodeId: string) => `actor_node:${nodeId}`;

/** How often a node that found its id held looks again whether the holder is still alive. */
const RECHECK_MS = 250;

/**
 * Another process still running actors under the id: its renewal has not run out, and it is not
 * a process of this host that is gone (exited, a zombie, or its pid now another process's), nor
 * this very process, started again in place.
 */
function heldByAnother(presence: Presence, now: number): boolean {
  if (presence.alive_until <= now) return false;
  if (presence.host !== hostname()) return true;
  if (presence.pid === process.pid) return false;
  const started = processStart(presence.pid);
  return started !== undefined && (presence.started === undefined || started === presence.started);
}

/**
 * A node's claim on its id, kept in the database while it runs. A node that finds another live
 * node holding its id refuses that id's leases (which would run every actor twice) and runs its
 * actors under an id of its own instead.
 */
export class NodePresence {
  private readonly instance = randomUUID();
  private timer?: ReturnType<typeof setInterval>;
  private watch?: ReturnType<typeof setInterval>;
  private nodeId = "";

  constructor(
    private readonly db: Database,
    private readonly now: () => number,
    private readonly durationMs: number,
    /** Told once a holder of this node's id, found gone, has had its leases freed. */
    private readonly holderGone: () => void = () => undefined,
  ) {}

  /** The id this node runs its actors under: `wanted`, unless a live node holds it. */
  async join(wanted: string): Promise<string> {
    let nodeId = wanted;
    const holder = await this.takeOrHolder(nodeId);
    if (holder) {
      nodeId = `${wanted}-${process.pid}-${randomSuffix()}`;
      console.error(`node id '${wanted}' is held by a live node (host ${holder.host}, pid ${holder.pid}): its leases are not taken; this node runs its actors as '${nodeId}'. Give each node its own GATEWAY_NODE_ID.`);
      await this.takeOrHolder(nodeId);
      this.watchHolder(wanted, holder);
    }
    this.nodeId = nodeId;
    this.timer = setInterval(() => void this.renew().catch((error) => console.error(`renewing node id '${nodeId}' failed: ${(error as Error).message}`)), this.durationMs / 3);
    this.timer.unref?.();
    return nodeId;
  }

  /**
   * Looks again until the holder's record would run out: a holder found gone meanwhile (a process
   * killed a moment ago, still exiting) leaves its actors to whichever node claims them next, at
   * once instead of when their leases run out.
   */
  private watchHolder(nodeId: string, holder: Presence): void {
    const watch = setInterval(() => {
      if (this.now() >= holder.alive_until) return clearInterval(watch);
      if (heldByAnother(holder, this.now())) return;
      clearInterval(watch);
      void this.freeLeasesOf(nodeId, holder).catch((error) => console.error(`freeing the leases of node id '${nodeId}' failed: ${(error as Error).message}`));
    }, RECHECK_MS);
    watch.unref?.();
    this.watch = watch;
  }

  /**
   * The holder is gone: its leases run out now, and its presence record goes. Only while the
   * record is still the holder's: a node that took the id meanwhile keeps its leases.
   */
  private async freeLeasesOf(nodeId: string, holder: Presence): Promise<void> {
    const holderRecord = and(eq(gatewayMeta.key, presenceKey(nodeId)), sql`json_extract(${gatewayMeta.value}, '$.instance') = ${holder.instance}`);
    await this.db.batch([
      this.db
        .update(actorSnapshots)
        .set({ leaseUntil: 0 })
        .where(and(eq(actorSnapshots.owner, nodeId), sql`exists (select 1 from ${gatewayMeta} where ${holderRecord})`)),
      this.db.delete(gatewayMeta).where(holderRecord),
    ]);
    this.holderGone();
  }

  /** Hands the id back: the next node to start under it (this one again, or another) takes it at once. */
  async leave(): Promise<void> {
    clearInterval(this.timer);
    clearInterval(this.watch);
    if (!this.nodeId) return;
    await this.db.delete(gatewayMeta).where(and(eq(gatewayMeta.key, presenceKey(this.nodeId)), this.isMine()));
  }

  /** Takes the id (undefined), or answers the live node that holds it. */
  private async takeOrHolder(nodeId: string): Promise<Presence | undefined> {
    const key = presenceKey(nodeId);
    const row = await this.db.select({ value: gatewayMeta.value }).from(gatewayMeta).where(eq(gatewayMeta.key, key)).get();
    if (row) {
      const presence = JSON.parse(row.value) as Presence;
      if (presence.instance !== this.instance && heldByAnother(presence, this.now())) return presence;
    }
    // Compare and set: of two nodes starting at once, one finds the row the other wrote.
    const value = JSON.stringify(this.presence());
    if (row) await this.db.update(gatewayMeta).set({ value }).where(and(eq(gatewayMeta.key, key), eq(gatewayMeta.value, row.value)));
    else await this.db.insert(gatewayMeta).values({ key, value }).onConflictDoNothing();
    const written = await this.db.select({ value: gatewayMeta.value }).from(gatewayMeta).where(eq(gatewayMeta.key, key)).get();
    return written?.value === value ? undefined : this.takeOrHolder(nodeId);
  }

  private async renew(): Promise<void> {
    await this.db
      .update(gatewayMeta)
      .set({ value: JSON.stringify(this.presence()) })
      .where(and(eq(gatewayMeta.key, presenceKey(this.nodeId)), this.isMine()));
  }

  private presence(): Presence {
    return { instance: this.instance, host: hostname(), pid: process.pid, started: OWN_START, alive_until: this.now() + this.durationMs };
  }

  private isMine() {
    return sql`json_extract(${gatewayMeta.value}, '$.instance') = ${this.instance}`;
  }
}
