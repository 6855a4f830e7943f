import type { Server } from "bun";

/**
 * The server the gateway listens on, once it does. The hooks that run on every request read it
 * here: one reading `server` from Elysia's context makes Elysia define a getter for it on every
 * request's context.
 */
export interface Serving {
  server: Server<unknown> | null;
}
