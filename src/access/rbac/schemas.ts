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

const Instant = t.String({ format: "date-time" });

export const PermissionReply = t.Object({ id: Type.Integer(), name: t.String({ description: "`Resource:Operation`." }), resource: t.String(), operation: t.String() });
export const PermissionList = t.Object({ permissions: t.Array(PermissionReply), count: Type.Integer() });

export const RoleReply = t.Object({
  id: Type.Integer(),
  name: t.String(),
  description: t.String(),
  is_builtin: t.Boolean(),
  permission_ids: t.Array(Type.Integer()),
  permissions: t.Array(t.String(), { description: "The permissions' names." }),
  created_at: Instant,
  updated_at: Instant,
});
export const RoleList = t.Object({ roles: t.Array(RoleReply), count: Type.Integer() });

export const UserReply = t.Object(
  {
    id: t.String(),
    username: t.String(),
    name: t.String(),
    role_id: Type.Integer(),
    role: t.String({ description: "The role's name." }),
    has_password: t.Boolean({ description: "Whether the user can log in to the dashboard." }),
    created_at: Instant,
    updated_at: Instant,
  },
  { description: "A dashboard user; never the password." },
);
export const UserList = t.Object({ users: t.Array(UserReply), count: Type.Integer() });
