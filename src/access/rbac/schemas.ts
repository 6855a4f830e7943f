import { type Static, t } from "elysia";
import { Type } from "@sinclair/typebox";
import { MIN_PASSWORD_LENGTH } from "../admin-account";

const PermissionIds = t.Array(Type.Integer({ minimum: 0 }), { description: "ids from GET /api/governance/rbac/permissions" });

export const RoleParams = t.Object({ role_id: t.Integer({ minimum: 1 }) });
export const UserParams = t.Object({ user_id: t.String() });

export const RoleCreateInput = t.Object(
  { name: t.String({ minLength: 1 }), description: t.Optional(t.String()), permission_ids: t.Optional(PermissionIds) },
  { additionalProperties: false },
);
export const RoleUpdateInput = t.Object({ name: t.Optional(t.String({ minLength: 1 })), description: t.Optional(t.String()) }, { additionalProperties: false });

/** Spec 4.9. */
export const RolePermissionsInput = t.Object({ permission_ids: PermissionIds });
export type RolePermissionsInput = Static<typeof RolePermissionsInput>;

const Password = t.String({ minLength: MIN_PASSWORD_LENGTH, description: "lets the user log in to the dashboard" });

export const UserCreateInput = t.Object(
  { username: t.String({ minLength: 1 }), name: t.Optional(t.String()), role_id: Type.Integer({ minimum: 1 }), password: t.Optional(Password) },
  { additionalProperties: false },
);
export const UserUpdateInput = t.Object(
  { name: t.Optional(t.String()), role_id: t.Optional(Type.Integer({ minimum: 1 })), password: t.Optional(Password) },
  { additionalProperties: false },
);
