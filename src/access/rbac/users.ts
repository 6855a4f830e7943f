import { asc, eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { type RbacUserRow, rbacRoles, rbacUsers } from "../../db/schema";
import { conflict, notFound } from "../../http/errors";
import type { AdminAccount } from "../admin-account";
import { hashPassword, verifyPassword } from "../passwords";
import type { SessionStore } from "../sessions";
import type { RoleStore } from "./roles";

export interface UserView {
  id: string;
  username: string;
  name: string;
  role_id: number;
  role: string;
  /** Whether the user can log in to the dashboard. */
  has_password: boolean;
  created_at: string;
  updated_at: string;
}

export interface UserInput {
  username: string;
  name?: string;
  role_id: number;
  password?: string;
}

export type UserChange = Partial<Omit<UserInput, "username">>;

/** RBAC users: each holds one role; those with a password log in to the dashboard. */
export class UserStore {
  constructor(
    private readonly db: Database,
    private readonly roles: RoleStore,
    private readonly sessions: SessionStore,
    private readonly admin: AdminAccount,
    /** What goes with a deleted user: their sign-in identities and API keys. */
    private readonly belongings: { forget(userId: string): Promise<void> },
  ) {}

  async list(): Promise<UserView[]> {
    const rows = await this.rowsWithRole().orderBy(asc(rbacUsers.createdAt));
    return rows.map(({ user, role }) => view(user, role));
  }

  async require(id: string): Promise<UserView> {
    const row = await this.rowsWithRole().where(eq(rbacUsers.id, id)).get();
    if (!row) throw notFound(`user '${id}' does not exist`, "caller_user_not_found");
    return view(row.user, row.role);
  }

  async create(input: UserInput): Promise<UserView> {
    await this.roles.require(input.role_id);
    if (await this.db.select({ id: rbacUsers.id }).from(rbacUsers).where(eq(rbacUsers.username, input.username)).get()) {
      throw conflict(`a user named '${input.username}' already exists`, "username");
    }
    if ((await this.admin.current())?.username === input.username) throw conflict(`'${input.username}' is the admin account's username`, "username");
    const now = new Date();
    const id = crypto.randomUUID();
    const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
    await this.db.insert(rbacUsers).values({ id, username: input.username, name: input.name ?? "", roleId: input.role_id, passwordHash, createdAt: now, updatedAt: now });
    return this.require(id);
  }

  async update(id: string, change: UserChange): Promise<UserView> {
    const current = await this.require(id);
    if (change.role_id !== undefined) await this.roles.require(change.role_id);
    const passwordHash = change.password === undefined ? undefined : await hashPassword(change.password);
    await this.db
      .update(rbacUsers)
      .set({ name: change.name ?? current.name, roleId: change.role_id ?? current.role_id, ...(passwordHash ? { passwordHash } : {}), updatedAt: new Date() })
      .where(eq(rbacUsers.id, id));
    if (passwordHash) await this.sessions.revokeAll("user", id);
    return this.require(id);
  }

  async remove(id: string): Promise<void> {
    await this.require(id);
    await this.belongings.forget(id);
    await this.db.delete(rbacUsers).where(eq(rbacUsers.id, id));
    await this.sessions.revokeAll("user", id);
  }

  /** The user these credentials belong to; a miss costs as much as a hit. */
  async verify(username: string, password: string): Promise<RbacUserRow | undefined> {
    const user = await this.db.select().from(rbacUsers).where(eq(rbacUsers.username, username)).get();
    return (await verifyPassword(password, user?.passwordHash)) ? user : undefined;
  }

  /** The permission ids a user holds through their role, or undefined when the user is gone. */
  async permissionsOf(id: string): Promise<Set<number> | undefined> {
    const user = await this.db.select({ roleId: rbacUsers.roleId }).from(rbacUsers).where(eq(rbacUsers.id, id)).get();
    return user && this.roles.permissionsOf(user.roleId);
  }

  private rowsWithRole() {
    return this.db.select({ user: rbacUsers, role: rbacRoles.name }).from(rbacUsers).innerJoin(rbacRoles, eq(rbacRoles.id, rbacUsers.roleId));
  }
}

function view(user: RbacUserRow, role: string): UserView {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    role_id: user.roleId,
    role,
    has_password: user.passwordHash !== null,
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
  };
}
