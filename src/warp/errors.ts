import { LibsqlError } from "@libsql/client";
import { DrizzleQueryError } from "drizzle-orm/errors";
import { GatewayError } from "../http/errors";

/** Spec 2.2: the agent answers nothing until `configured` is true. */
export const notConfigured = () =>
  new GatewayError({
    status: 503,
    errorType: "gateway_warp_not_configured",
    code: "not_configured",
    message: "the dashboard agent is not configured: enable it with a model and a complete embedding space (PUT /api/warp/config)",
    extra: { reason: "not_configured" },
  });

const configStoreUnavailable = () =>
  new GatewayError({ status: 503, errorType: "gateway_config_store_unavailable", code: "config_store_unavailable", message: "the agent's config store is not available", extra: { reason: "config_store_unavailable" } });

/**
 * Runs a config store operation; a database that cannot serve it is a 503 (spec 4.1 rule 9).
 * Anything else (a value that cannot be read back, a bug) stays an internal error: a 500.
 */
export async function fromConfigStore<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    const cause = error instanceof DrizzleQueryError ? error.cause : error;
    if (!(cause instanceof LibsqlError || error instanceof DrizzleQueryError)) throw error;
    console.error("warp: config store failed", cause);
    throw configStoreUnavailable();
  }
}
