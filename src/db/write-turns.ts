import type { Database } from "./client";

const lastTurn = new WeakMap<Database, Promise<unknown>>();

/**
 * Runs `write` once the writes queued before it on `db` have settled. An interactive transaction
 * on the embedded file holds its lock between statements; a write on another connection in that
 * moment would wait for the lock synchronously, holding up the very thread the transaction needs
 * to finish, until the busy timeout failed it. Writes that may meet such a transaction take turns.
 */
export function inWriteTurn<T>(db: Database, write: () => Promise<T>): Promise<T> {
  const turn = (lastTurn.get(db) ?? Promise.resolve()).then(write, write);
  lastTurn.set(db, turn.catch(() => undefined));
  return turn;
}
