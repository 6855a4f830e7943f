import type { Database } from "../db/client";
import { BackgroundResponseLedger, type PendingResponse } from "./background";
import { continuationOf, continuedBody } from "./chain";
import { mayBeStored } from "./ids";
import { refersToItems, withReferencesResolved } from "./references";
import { DEFAULT_RETENTION_DAYS, type NewStoredResponse, type StoredResponse, StoredResponseStore } from "./store";

type Body = Record<string, unknown>;

/** A request continuing a stored response: its id, and how many input items lead up to the request's own. */
export interface Continuation {
  id: string;
  length: number;
}

export interface StoredResponsesOptions {
  db: Database;
  /** The virtual key id a request presents (a wrong key is refused), or undefined. */
  callerOf(headers: Headers): string | undefined;
  /** `stored_responses` of the config, read per use: off keeps nothing new. */
  settings: () => { enabled?: boolean; retention_days?: number } | undefined;
  clock?: () => number;
}

/**
 * The Responses API's state for providers without one: responses the gateway bridged are kept
 * (unless the request says `store: false`), a later request names one in `previous_response_id`,
 * and the routes on `/v1/responses/{id}` read and remove them. OpenAI keeps its own responses: an
 * id not of the gateway's shape is left for the provider to resolve.
 */
export function createStoredResponses({ db, callerOf, settings, clock = Date.now }: StoredResponsesOptions) {
  const store = new StoredResponseStore(db, clock, () => settings()?.retention_days ?? DEFAULT_RETENTION_DAYS);
  const ledger = new BackgroundResponseLedger(db, clock);
  const writing = new Set<Promise<void>>();
  /** A write the reply does not wait for: logged when it fails, awaited when the gateway stops. */
  const track = (write: Promise<void>, failure: string) => {
    const written = write.catch((error: unknown) => console.error(failure, error));
    writing.add(written);
    void written.finally(() => writing.delete(written));
  };

  return {
    /** A response this gateway keeps for the caller; undefined for ids of the provider's own (OpenAI's). */
    async find(id: string, headers: Headers): Promise<StoredResponse | undefined> {
      return mayBeStored(id) ? store.get(id, callerOf(headers)) : undefined;
    },
    /** The virtual key a request presents, whose responses it sees. */
    callerOf,
    /** Whether `id` names a response of the gateway's: an unknown one of that shape is not the provider's either. */
    ownsId: mayBeStored,
    /** Whether the caller's response was deleted. */
    async remove(id: string, headers: Headers): Promise<boolean> {
      return mayBeStored(id) && store.delete(id, callerOf(headers));
    },
    /** Whether new responses are kept (`stored_responses.enabled`, on by default). */
    get enabled() {
      return settings()?.enabled !== false;
    },
    /** The body with a stored `previous_response_id` written out whole, and what it continues; as it came otherwise. */
    async continued(body: Body, owner: string | undefined): Promise<{ body: Body; continuing?: Continuation }> {
      const id = body.previous_response_id;
      if (typeof id !== "string" || !mayBeStored(id)) return { body };
      const previous = await store.get(id, owner);
      if (!previous) return { body };
      const conversation = continuationOf([previous]);
      return { body: continuedBody(body, conversation), continuing: { id, length: conversation.length } };
    },
    /** The body with its references to items of the caller's stored responses replaced by the items; as it came when it has none. */
    async withItemsReferenced(body: Body, owner: string | undefined): Promise<Body> {
      if (!refersToItems(body)) return body;
      // A client's next step may come before the write of the response it refers to is done.
      await Promise.all(writing);
      return withReferencesResolved(body, (id) => store.get(id, owner));
    },
    /** Keeps a bridged response; a failed write is logged, never the client's problem. */
    keep(entry: NewStoredResponse): void {
      track(store.put(entry), `stored response ${entry.id} was not kept`);
    },
    /**
     * Remembers a response the provider goes on writing in the background, so that the read that
     * finds it finished bills its usage. Awaited before the create is answered: a client polling
     * at once must find it.
     */
    startedInBackground: (id: string, pending: PendingResponse) => ledger.remember(id, pending),
    /** The provider and model of a background response whose usage is not billed yet. */
    pendingInBackground: (id: string) => ledger.pending(id),
    /** Whether a read of a background response bills its usage: once. */
    billsOnce(id: string): boolean {
      const forgotten = ledger.claim(id);
      if (forgotten) track(forgotten, `background response ${id} stays pending`);
      return forgotten !== undefined;
    },
    /** Waits for the writes still under way (responses kept, background responses billed). */
    async close(): Promise<void> {
      await Promise.all(writing);
    },
  };
}

export type StoredResponses = ReturnType<typeof createStoredResponses>;

export { InputItemsQuery, inputItemsPage } from "./input-items";
