import { ALL_PERMISSION_IDS, permissionId, type PermissionName } from "./permissions";

export type PrincipalType = "anonymous" | "setup" | "admin" | "user" | "api_key";

/** Who is calling a management route, and what they may do. */
export interface Principal {
  type: PrincipalType;
  /** Admin username, user id or API key id; "setup" for the setup-token holder; "" when anonymous. */
  id: string;
  /** The local admin (spec 5.5) bypasses permission checks. */
  localAdmin: boolean;
  permissionIds: ReadonlySet<number>;
  /** SHA-256 of the session token the request came with, so logout can revoke it. */
  sessionTokenHash?: string;
  /** Authenticated by a session cookie, which the browser sends on its own: writes must come from the gateway's pages. */
  byCookie?: boolean;
}

export const ANONYMOUS: Principal = { type: "anonymous", id: "", localAdmin: false, permissionIds: new Set() };

export const localAdmin = (type: "setup" | "admin", id: string, sessionTokenHash?: string): Principal => ({
  type,
  id,
  localAdmin: true,
  permissionIds: ALL_PERMISSION_IDS,
  sessionTokenHash,
});

export const holds = (principal: Principal, permission: PermissionName) => principal.localAdmin || principal.permissionIds.has(permissionId(permission));

/** The ids among `wanted` the principal does not hold: nobody can grant what they lack. */
export const lackedPermissions = (principal: Principal, wanted: Iterable<number>) => [...wanted].filter((id) => !principal.permissionIds.has(id));
