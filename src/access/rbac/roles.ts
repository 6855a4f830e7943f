import { asc, eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { type RbacRoleRow, rbacRolePermissions, rbacRoles, rbacUsers } from "../../db/schema";
import { conflict, notFound } from "../../http/errors";
import { ALL_PERMISSION_IDS, knownPermissionIds, permissionId, permissionNames } from "../permissions";
import { ADMIN_ROLE, BUILTIN_ROLES } from "./builtin-roles";

export interface RoleView {
  id: number;
  name: string;
  description: string;
  is_builtin: boolean;
  permission_ids: number[];
  permissions: string[];
  created_at: string;
  updated_at: string;
}

export interface RoleInput {
  name: string;
  description?: string;
  permission_ids?: number[];
}

/** RBAC roles and the permission ids each holds. */
export class RoleStore {
  constructor(private readonly db: Database) {}

  /** Creates missing built-in roles, and tops Admin up with permissions added since. */
  async seedBuiltins(): Promise<void> {
    for (const builtin of BUILTIN_ROLES) {
      const existing = await this.db.select().from(rbacRoles).where(eq(rbacRoles.name, builtin.name)).get();
      const ids = builtin.permissions.map(permissionId);
      if (!existing) await this.insert({ name: builtin.name, description: builtin.description, permission_ids: ids }, true);
      else if (builtin.name === ADMIN_ROLE) await this.addPermissions(existing.id, ids);
    }
  }

  async list(): Promise<RoleView[]> {
    const rows = await this.db.select().from(rbacRoles).orderBy(asc(rbacRoles.id));
    return Promise.all(rows.map((row) => this.view(row)));
  }

  async require(id: number): Promise<RoleView> {
    return this.view(await this.requireRow(id));
  }

  async permissionsOf(roleId: number): Promise<Set<number>> {
    const rows = await this.db.select({ id: rbacRolePermissions.permissionId }).from(rbacRolePermissions).where(eq(rbacRolePermissions.roleId, roleId));
    return new Set(rows.map((row) => row.id));
  }

  async create(input: RoleInput): Promise<RoleView> {
    const ids = knownPermissionIds(input.permission_ids ?? [], "permission_ids");
    await this.assertNameFree(input.name);
    return this.require(await this.insert({ ...input, permission_ids: ids }, false));
  }

  async update(id: number, input: { name?: string; description?: string }): Promise<RoleView> {
    const row = await this.requireRow(id);
    if (input.name !== undefined && input.name !== row.name) {
      if (row.builtin) throw conflict(`the built-in role '${row.name}' cannot be renamed`, "name");
      await this.assertNameFree(input.name);
    }
    await this.db
      .update(rbacRoles)
      .set({ name: input.name ?? row.name, description: input.description ?? row.description, updatedAt: new Date() })
      .where(eq(rbacRoles.id, id));
    return this.require(id);
  }

  /** Spec 4.9: the role's permissions become exactly `ids`. */
  async replacePermissions(id: number, ids: readonly number[]): Promise<void> {
    const known = knownPermissionIds(ids, "permission_ids");
    const row = await this.requireRow(id);
    if (row.name === ADMIN_ROLE && row.builtin) throw conflict("the built-in Admin role always holds every permission", "role_id");
    await this.db.transaction(async (tx) => {
      await tx.delete(rbacRolePermissions).where(eq(rbacRolePermissions.roleId, id));
      if (known.length) await tx.insert(rbacRolePermissions).values(known.map((permissionId) => ({ roleId: id, permissionId })));
      await tx.update(rbacRoles).set({ updatedAt: new Date() }).where(eq(rbacRoles.id, id));
    });
  }

  async remove(id: number): Promise<void> {
    const row = await this.requireRow(id);
    if (row.builtin) throw conflict(`the built-in role '${row.name}' cannot be deleted`, "role_id");
    const holder = await this.db.select({ id: rbacUsers.id }).from(rbacUsers).where(eq(rbacUsers.roleId, id)).get();
    if (holder) throw conflict(`role '${row.name}' is assigned to users; give them another role first`, "role_id");
    await this.db.delete(rbacRoles).where(eq(rbacRoles.id, id));
  }

  private async requireRow(id: number): Promise<RbacRoleRow> {
    const row = await this.db.select().from(rbacRoles).where(eq(rbacRoles.id, id)).get();
    if (!row) throw notFound(`role ${id} does not exist`, "caller_role_not_found");
    return row;
  }

  private async assertNameFree(name: string): Promise<void> {
    if (await this.db.select({ id: rbacRoles.id }).from(rbacRoles).where(eq(rbacRoles.name, name)).get()) throw conflict(`a role named '${name}' already exists`, "name");
  }

  private async insert(input: RoleInput, builtin: boolean): Promise<number> {
    const now = new Date();
    const [row] = await this.db
      .insert(rbacRoles)
      .values({ name: input.name, description: input.description ?? "", builtin, createdAt: now, updatedAt: now })
      .returning({ id: rbacRoles.id });
    await this.addPermissions(row!.id, input.permission_ids ?? []);
    return row!.id;
  }

  private async addPermissions(roleId: number, ids: readonly number[]): Promise<void> {
    if (!ids.length) return;
    await this.db
      .insert(rbacRolePermissions)
      .values(ids.map((permissionId) => ({ roleId, permissionId })))
      .onConflictDoNothing();
  }

  private async view(row: RbacRoleRow): Promise<RoleView> {
    const ids = [...(await this.permissionsOf(row.id))].filter((id) => ALL_PERMISSION_IDS.has(id)).sort((a, b) => a - b);
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      is_builtin: row.builtin,
      permission_ids: ids,
      permissions: permissionNames(ids),
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
    };
  }
}

