import { eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { type CustomerRow, governanceCustomers, governanceTeams, type TeamRow } from "../../db/schema";
import { badRequest } from "../../http/errors";
import { checkBudgets, checkRateLimit } from "../limits/validate-limits";
import type { CustomerInput, CustomerUpdateInput, TeamInput, TeamUpdateInput } from "../schemas";
import { RowCache } from "./row-cache";

export const customerView = (row: CustomerRow) => ({
  id: row.id,
  name: row.name,
  budgets: row.budgets,
  rate_limit: row.rateLimit,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

/** Limits as stored: validated, with the old value kept where the input leaves a field out. */
function limitsOf(input: CustomerUpdateInput, current?: Pick<CustomerRow, "budgets" | "rateLimit">) {
  return {
    budgets: input.budgets === undefined ? (current?.budgets ?? []) : checkBudgets(input.budgets, "budgets", current?.budgets),
    rateLimit: input.rate_limit === undefined ? (current?.rateLimit ?? null) : checkRateLimit(input.rate_limit, "rate_limit"),
  };
}

/** Customers and the teams that may belong to them; a virtual key belongs to one of either. */
export class Organization {
  readonly customers = new RowCache<CustomerRow>("customer");
  readonly teams = new RowCache<TeamRow>("team");

  constructor(private readonly db: Database) {}

  async load(): Promise<void> {
    await this.customers.reload(() => this.db.select().from(governanceCustomers));
    await this.teams.reload(() => this.db.select().from(governanceTeams));
  }

  teamView = (row: TeamRow) => {
    const customer = row.customerId ? this.customers.get(row.customerId) : undefined;
    return { ...customerView(row), customer_id: row.customerId, customer: customer ? { id: customer.id, name: customer.name } : null };
  };

  async createCustomer(input: CustomerInput): Promise<CustomerRow> {
    const now = new Date();
    const row: CustomerRow = { id: crypto.randomUUID(), name: input.name, ...limitsOf(input), createdAt: now, updatedAt: now };
    await this.db.insert(governanceCustomers).values(row);
    return this.customers.set(row);
  }

  async updateCustomer(id: string, input: CustomerUpdateInput): Promise<CustomerRow> {
    const current = this.customers.require(id);
    const row: CustomerRow = { ...current, name: input.name ?? current.name, ...limitsOf(input, current), updatedAt: new Date() };
    await this.db.update(governanceCustomers).set(row).where(eq(governanceCustomers.id, id));
    return this.customers.set(row);
  }

  /** Teams of the customer stay, without a customer (the foreign key sets it null). */
  async removeCustomer(id: string): Promise<void> {
    this.customers.require(id);
    await this.db.delete(governanceCustomers).where(eq(governanceCustomers.id, id));
    await this.load();
  }

  async createTeam(input: TeamInput): Promise<TeamRow> {
    const now = new Date();
    const row: TeamRow = { id: crypto.randomUUID(), name: input.name, customerId: this.customerRef(input.customer_id), ...limitsOf(input), createdAt: now, updatedAt: now };
    await this.db.insert(governanceTeams).values(row);
    return this.teams.set(row);
  }

  async updateTeam(id: string, input: TeamUpdateInput): Promise<TeamRow> {
    const current = this.teams.require(id);
    const customerId = input.customer_id === undefined ? current.customerId : this.customerRef(input.customer_id);
    const row: TeamRow = { ...current, name: input.name ?? current.name, customerId, ...limitsOf(input, current), updatedAt: new Date() };
    await this.db.update(governanceTeams).set(row).where(eq(governanceTeams.id, id));
    return this.teams.set(row);
  }

  async removeTeam(id: string): Promise<void> {
    this.teams.require(id);
    await this.db.delete(governanceTeams).where(eq(governanceTeams.id, id));
    this.teams.delete(id);
  }

  private customerRef(id: string | null | undefined): string | null {
    if (!id) return null;
    if (!this.customers.get(id)) throw badRequest(`customer '${id}' does not exist`, "customer_id");
    return id;
  }
}
