import type { Database } from "../db/client";
import { providerKeys, providers } from "../db/schema";
import { reloadOnChange } from "../db/table-changes";
import type { ProviderStore } from "./store";

/** Reads the providers and their keys again whenever another node on the same database changed them. */
export function reloadProvidersOnChange(db: Database, store: ProviderStore, intervalMs?: number) {
  return reloadOnChange(db, [providers, providerKeys], () => store.load(), intervalMs);
}
