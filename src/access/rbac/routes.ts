import { Elysia } from "elysia";
import { markDeprecated } from "../deprecation";
import { assertCanGrant } from "../grants";
import { knownPermissionIds, PERMISSIONS } from "../permissions";
import { noteAudit, principalOf } from "../request-context";
import type { RoleStore } from "./roles";
import {
  PermissionList,
  RoleCreateInput,
  RoleList,
  RoleParams,
  RolePermissionsInput,
  RoleReply,
  RoleUpdateInput,
  UserCreateInput,
  UserList,
  UserParams,
  UserReply,
  UserUpdateInput,
} from "./schemas";
import type { UserStore } from "./users";
import { Deleted, Message, replies } from "../../http/replies";
import { Type } from "@sinclair/typebox";

/** What replacing a role's permissions answers. */
const PermissionsReplaced = Type.Object({ message: Message });

const rolePath = (roleId: number) => `/api/governance/rbac/roles/${roleId}`;

/** Spec 4.9, shared by the current and the deprecated path: only added permissions are grants. */
async function replaceRolePermissions(roles: RoleStore, request: Request, roleId: number, body: RolePermissionsInput) {
  const before = await roles.require(roleId);
  const added = knownPermissionIds(body.permission_ids, "permission_ids").filter((id) => !before.permission_ids.includes(id));
  assertCanGrant(principalOf(request), added, "permission_ids");
  await roles.replacePermissions(roleId, body.permission_ids);
  noteAudit(request, { before: before.permissions, after: (await roles.require(roleId)).permissions });
  return { message: "Permissions updated" };
}

/** Roles and the permission catalogue (enterprise). */
const roleRoutes = (roles: RoleStore) =>
  new Elysia({ name: "rbac-role-routes" })
    .get("/api/governance/rbac/permissions", () => ({ permissions: [...PERMISSIONS], count: PERMISSIONS.length }), replies({ 200: PermissionList }, { summary: "List permissions", description: "Every permission a role or an API key can hold, with its id." }))
    .group("/api/governance/rbac/roles", (group) =>
      group
        .get("/", async () => {
          const list = await roles.list();
          return { roles: list, count: list.length };
        }, replies({ 200: RoleList }, { summary: "List roles" }))
        .post(
          "/",
          async ({ request, body, set }) => {
            assertCanGrant(principalOf(request), body.permission_ids ?? [], "permission_ids");
            const role = await roles.create(body);
            noteAudit(request, { targetId: String(role.id), after: role });
            set.status = 201;
            return role;
          },
          { body: RoleCreateInput, ...replies({ 201: RoleReply }, { summary: "Create a role" }) },
        )
        .get("/:role_id", ({ params }) => roles.require(params.role_id), { params: RoleParams, ...replies({ 200: RoleReply }, { summary: "Get a role" }) })
        .put(
          "/:role_id",
          async ({ request, params, body }) => {
            const before = await roles.require(params.role_id);
            const after = await roles.update(params.role_id, body);
            noteAudit(request, { before, after });
            return after;
          },
          { params: RoleParams, body: RoleUpdateInput, ...replies({ 200: RoleReply }, { summary: "Update a role" }) },
        )
        .delete(
          "/:role_id",
          async ({ request, params }) => {
            noteAudit(request, { before: await roles.require(params.role_id) });
            await roles.remove(params.role_id);
            return { message: "Role deleted successfully" };
          },
          { params: RoleParams, ...replies({ 200: Deleted }, { summary: "Delete a role", description: "Refused while a user holds the role." }) },
        )
        .put("/:role_id/permissions", ({ request, params, body }) => replaceRolePermissions(roles, request, params.role_id, body), {
          params: RoleParams,
          body: RolePermissionsInput,
          ...replies({ 200: PermissionsReplaced }, { summary: "Replace a role's permissions" }),
        }),
    )
    .put(
      "/api/roles/:role_id/permissions",
      ({ request, params, body, set }) => {
        markDeprecated(set, `${rolePath(params.role_id)}/permissions`);
        return replaceRolePermissions(roles, request, params.role_id, body);
      },
      { params: RoleParams, body: RolePermissionsInput, ...replies({ 200: PermissionsReplaced }, { summary: "Replace a role's permissions (deprecated path)", description: "Deprecated: use PUT /api/governance/rbac/roles/{role_id}/permissions." }) },
    );

/** Users and their roles (enterprise): assigning a role grants its permissions. */
const userRoutes = (roles: RoleStore, users: UserStore) =>
  new Elysia({ name: "rbac-user-routes", prefix: "/api/governance/rbac/users" })
    .get("/", async () => {
      const list = await users.list();
      return { users: list, count: list.length };
    }, replies({ 200: UserList }, { summary: "List dashboard users" }))
    .post(
      "/",
      async ({ request, body, set }) => {
        assertCanGrant(principalOf(request), (await roles.require(body.role_id)).permission_ids, "role_id");
        const user = await users.create(body);
        noteAudit(request, { targetId: user.id, after: user });
        set.status = 201;
        return user;
      },
      { body: UserCreateInput, ...replies({ 201: UserReply }, { summary: "Create a dashboard user" }) },
    )
    .get("/:user_id", ({ params }) => users.require(params.user_id), { params: UserParams, ...replies({ 200: UserReply }, { summary: "Get a dashboard user" }) })
    .put(
      "/:user_id",
      async ({ request, params, body }) => {
        const before = await users.require(params.user_id);
        if (body.role_id !== undefined && body.role_id !== before.role_id) {
          assertCanGrant(principalOf(request), (await roles.require(body.role_id)).permission_ids, "role_id");
        }
        const after = await users.update(params.user_id, body);
        noteAudit(request, { before, after });
        return after;
      },
      { params: UserParams, body: UserUpdateInput, ...replies({ 200: UserReply }, { summary: "Update a dashboard user" }) },
    )
    .delete(
      "/:user_id",
      async ({ request, params }) => {
        noteAudit(request, { before: await users.require(params.user_id) });
        await users.remove(params.user_id);
        return { message: "User deleted successfully" };
      },
      { params: UserParams, ...replies({ 200: Deleted }, { summary: "Delete a dashboard user" }) },
    );

export const rbacRoutes = (roles: RoleStore, users: UserStore) => new Elysia({ name: "rbac-routes" }).use(roleRoutes(roles)).use(userRoutes(roles, users));
