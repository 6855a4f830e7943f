import { Elysia } from "elysia";
import { markDeprecated } from "../deprecation";
import { assertCanGrant } from "../grants";
import { knownPermissionIds, PERMISSIONS } from "../permissions";
import { noteAudit, principalOf } from "../request-context";
import type { RoleStore } from "./roles";
import { RoleCreateInput, RoleParams, RolePermissionsInput, RoleUpdateInput, UserCreateInput, UserParams, UserUpdateInput } from "./schemas";
import type { UserStore } from "./users";
import { answersCreated } from "../../http/replies";

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
    .get("/api/governance/rbac/permissions", () => ({ permissions: PERMISSIONS, count: PERMISSIONS.length }))
    .group("/api/governance/rbac/roles", (group) =>
      group
        .get("/", async () => {
          const list = await roles.list();
          return { roles: list, count: list.length };
        })
        .post(
          "/",
          async ({ request, body, set }) => {
            assertCanGrant(principalOf(request), body.permission_ids ?? [], "permission_ids");
            const role = await roles.create(body);
            noteAudit(request, { targetId: String(role.id), after: role });
            set.status = 201;
            return role;
          },
          { body: RoleCreateInput, ...answersCreated("Create a role") },
        )
        .get("/:role_id", ({ params }) => roles.require(params.role_id), { params: RoleParams })
        .put(
          "/:role_id",
          async ({ request, params, body }) => {
            const before = await roles.require(params.role_id);
            const after = await roles.update(params.role_id, body);
            noteAudit(request, { before, after });
            return after;
          },
          { params: RoleParams, body: RoleUpdateInput },
        )
        .delete(
          "/:role_id",
          async ({ request, params }) => {
            noteAudit(request, { before: await roles.require(params.role_id) });
            await roles.remove(params.role_id);
            return { message: "Role deleted successfully" };
          },
          { params: RoleParams },
        )
        .put("/:role_id/permissions", ({ request, params, body }) => replaceRolePermissions(roles, request, params.role_id, body), {
          params: RoleParams,
          body: RolePermissionsInput,
        }),
    )
    .put(
      "/api/roles/:role_id/permissions",
      ({ request, params, body, set }) => {
        markDeprecated(set, `${rolePath(params.role_id)}/permissions`);
        return replaceRolePermissions(roles, request, params.role_id, body);
      },
      { params: RoleParams, body: RolePermissionsInput },
    );

/** Users and their roles (enterprise): assigning a role grants its permissions. */
const userRoutes = (roles: RoleStore, users: UserStore) =>
  new Elysia({ name: "rbac-user-routes", prefix: "/api/governance/rbac/users" })
    .get("/", async () => {
      const list = await users.list();
      return { users: list, count: list.length };
    })
    .post(
      "/",
      async ({ request, body, set }) => {
        assertCanGrant(principalOf(request), (await roles.require(body.role_id)).permission_ids, "role_id");
        const user = await users.create(body);
        noteAudit(request, { targetId: user.id, after: user });
        set.status = 201;
        return user;
      },
      { body: UserCreateInput, ...answersCreated("Create a dashboard user") },
    )
    .get("/:user_id", ({ params }) => users.require(params.user_id), { params: UserParams })
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
      { params: UserParams, body: UserUpdateInput },
    )
    .delete(
      "/:user_id",
      async ({ request, params }) => {
        noteAudit(request, { before: await users.require(params.user_id) });
        await users.remove(params.user_id);
        return { message: "User deleted successfully" };
      },
      { params: UserParams },
    );

export const rbacRoutes = (roles: RoleStore, users: UserStore) => new Elysia({ name: "rbac-routes" }).use(roleRoutes(roles)).use(userRoutes(roles, users));
