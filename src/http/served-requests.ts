import { Elysia } from "elysia";
import type { Serving } from "./serving";

/**
 * Bun closes a connection that stays silent for the server's idle timeout, even while its
 * request is being served (a request whose body it has read excepted): a GET relayed to an
 * upstream that takes a minute would lose its client. Once a request has arrived, the gateway's
 * own timeouts (each provider's request timeout) bound it instead; the idle timeout still
 * guards connections that never send a whole request.
 */
export const servedRequestsNeverIdle = (serving: Serving) =>
  new Elysia({ name: "served-requests-never-idle" }).onRequest(({ request }) => {
    serving.server?.timeout(request, 0);
  });
