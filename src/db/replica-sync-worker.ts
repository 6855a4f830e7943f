/**
 * The embedded replica's sync thread. The driver's sync is synchronous and holds its thread for
 * as many round trips to the primary as the frames take: on the thread that serves requests it
 * would stall every one of them. This thread owns the replica's synced connection; the main
 * thread reads the file through a plain connection of its own and writes to the primary.
 */
import Database from "libsql";
import { serveChannel } from "./worker-channel";

export type SyncOpen = { path: string; syncUrl: string; authToken?: string };
export type SyncReply = { frameNo?: number };

serveChannel<SyncOpen, object>(({ path, syncUrl, authToken }) => {
  // The driver takes the token as `authToken`; its type declarations lag behind.
  const replica = new Database(path, { syncUrl, authToken } as ConstructorParameters<typeof Database>[1]);
  return (): SyncReply => {
    const synced = replica.sync() as { frame_no?: number } | undefined;
    return { frameNo: synced?.frame_no };
  };
});
