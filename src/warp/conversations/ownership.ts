import type { Principal } from "../../access/principal";
import type { StoredWarpConfig } from "../config/schema";

const DAY_MS = 86_400_000;

/** Chats belong to who asked; the local admin is one operator whether it came with the setup token or the password. */
export const ownerOf = (principal: Principal) => (principal.localAdmin ? "local-admin" : `${principal.type}:${principal.id}`);

/** Chats whose last turn is older than this are past retention (history_retention_days). */
export const keptSince = (config: StoredWarpConfig, now: Date) => new Date(now.getTime() - config.history_retention_days * DAY_MS);
