import { Elysia } from "elysia";
import type { Database } from "../db/client";
import { notFound } from "../http/errors";
import { continuationOf, continuedBody } from "./chain";
import { mayBeStored } from "./ids";
import { InputItemsQuery, inputItemsPage } from "./input-items";
import { DEFAULT_RETENTION_DAYS, type NewStoredResponse, StoredResponseStore } from "./store";

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
 * and `GET`/`DELETE /v1/responses/{id}` read and remove them. OpenAI keeps its own responses: an
 * id not found here is left for the provider to resolve.
 */
export function createStoredResponses({ db, callerOf, settings, clock = Date.now }: StoredResponsesOptions) {
  const store = new StoredResponseStore(db, clock, () => settings()?.retention_days ?? DEFAULT_RETENTION_DAYS);
  const writing = new Set<Promise<void>>();

  const missing = (id: string) => notFound(`no response '${id}' is stored by this gateway`);
  const storedOrNotFound = async (id: string, headers: Headers) => {
    const stored = await store.get(id, callerOf(headers));
    if (!stored) throw missing(id);
    return stored;
  };

  const readRoutes = () =>
    new Elysia()
      .get("/responses/:id", async ({ params, request }) => (await storedOrNotFound(params.id, request.headers)).response)
      .get("/responses/:id/input_items", async ({ params, query, request }) => inputItemsPage((await storedOrNotFound(params.id, request.headers)).input, params.id, query), { query: InputItemsQuery })
      .delete("/responses/:id", async ({ params, request }) => {
        if (!(await store.delete(params.id, callerOf(request.headers)))) throw missing(params.id);
        return { id: params.id, object: "response", deleted: true };
      });

  return {
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
    /** Keeps a bridged response; a failed write is logged, never the client's problem. */
    keep(entry: NewStoredResponse): void {
      const written = store.put(entry).catch((error: unknown) => console.error(`stored response ${entry.id} was not kept`, error));
      writing.add(written);
      void written.finally(() => writing.delete(written));
    },
    readRoutes,
    /** Waits for the responses still being written. */
    async close(): Promise<void> {
      await Promise.all(writing);
    },
  };
}

export type StoredResponses = ReturnType<typeof createStoredResponses>;
