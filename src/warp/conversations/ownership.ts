import type { Principal } from "../../access/principal";
import type { StoredWarpConfig } from "../config/schema";

const DAY_MS = 86_400_000;

/** Chats belong to who asked; the local admin is one operator whether it came with the setup token or the password. */
export const ownerOf = (principal: Principal) => (principal.localAdmin ? "local-admin" : `${principal.type}:${principal.id}`);

/** Chats whose last turn is older than this are past retention (history_retention_days, which has no maximum: past 1970 it keeps everything). */
export const keptSince = (config: StoredWarpConfig, now: Date) => new Date(Math.max(0, now.getTime() - config.history_retention_days * DAY_MS));
