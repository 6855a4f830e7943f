import { Elysia, t } from "elysia";
import { markDeprecated } from "../../access/deprecation";
import { CustomerInput, CustomerUpdateInput, ListQuery, TeamInput, TeamUpdateInput } from "../schemas";
import { customerView, type Organization } from "../stores/organization";
import type { VirtualKeyStore } from "../stores/virtual-keys";
import { Deleted, replies } from "../../http/replies";
import type { CustomerRow, TeamRow } from "../../db/schema";
import { customerListExample, teamListExample } from "../examples";
import { type ForecastsOf, forecastsReadableBy, withForecasts, withForecastsOf } from "./forecasts";
import { CustomerList, CustomerReply, CustomerWritten, TeamList, TeamReply, TeamWritten } from "../replies";

const TeamParams = t.Object({ team_id: t.String() });
const CustomerParams = t.Object({ id: t.String() });

/** Keys of a removed team or customer stay, detached (the foreign key sets it null). */
async function removeTeam(organization: Organization, keys: VirtualKeyStore, teamId: string) {
  await organization.removeTeam(teamId);
  await keys.load();
  return { message: "Team deleted successfully" };
}

/** /api/governance/teams and /api/governance/customers. */
export function organizationRoutes(organization: Organization, keys: VirtualKeyStore, forecastsOf: ForecastsOf) {
  const { teams, customers } = organization;
  const readable = forecastsReadableBy(forecastsOf);
  const teamView = (row: TeamRow, request: Request) => withForecastsOf("team", organization.teamView(row), readable(request));
  const customerOf = (row: CustomerRow, request: Request) => withForecastsOf("customer", customerView(row), readable(request));
  return new Elysia({ name: "governance-organization" })
    .get(
      "/teams",
      async ({ query, request }) => {
        const { rows, ...page } = teams.page(query);
        return { teams: await withForecasts("team", rows.map(organization.teamView), readable(request)), ...page };
      },
      { query: ListQuery, ...replies({ 200: TeamList }, { summary: "List teams", description: "A page of teams, each with its budgets' forecasts.", examples: { 200: teamListExample } }) },
    )
    .post(
      "/teams",
      async ({ body, set, request }) => {
        set.status = 201;
        return { message: "Team created successfully", team: await teamView(await organization.createTeam(body), request) };
      },
      { body: TeamInput, ...replies({ 201: TeamWritten }, { summary: "Create a team" }) },
    )
    .get("/teams/:team_id", async ({ params, request }) => ({ team: await teamView(teams.require(params.team_id), request) }), { params: TeamParams, ...replies({ 200: TeamReply }, { summary: "Get a team" }) })
    .put("/teams/:team_id", async ({ params, body, request }) => ({ message: "Team updated successfully", team: await teamView(await organization.updateTeam(params.team_id, body), request) }), { params: TeamParams, body: TeamUpdateInput, ...replies({ 200: TeamWritten }, { summary: "Update a team" }) })
    .delete("/teams/:team_id", ({ params }) => removeTeam(organization, keys, params.team_id), { params: TeamParams, ...replies({ 200: Deleted }, { summary: "Delete a team", description: "Its keys stay, detached from it." }) })
    .get(
      "/customers",
      async ({ query, request }) => {
        const { rows, ...page } = customers.page(query);
        return { customers: await withForecasts("customer", rows.map(customerView), readable(request)), ...page };
      },
      { query: ListQuery, ...replies({ 200: CustomerList }, { summary: "List customers", description: "A page of customers, each with its budgets' forecasts.", examples: { 200: customerListExample } }) },
    )
    .post(
      "/customers",
      async ({ body, set, request }) => {
        set.status = 201;
        return { message: "Customer created successfully", customer: await customerOf(await organization.createCustomer(body), request) };
      },
      { body: CustomerInput, ...replies({ 201: CustomerWritten }, { summary: "Create a customer" }) },
    )
    .get("/customers/:id", async ({ params, request }) => ({ customer: await customerOf(customers.require(params.id), request) }), { params: CustomerParams, ...replies({ 200: CustomerReply }, { summary: "Get a customer" }) })
    .put("/customers/:id", async ({ params, body, request }) => ({ message: "Customer updated successfully", customer: await customerOf(await organization.updateCustomer(params.id, body), request) }), { params: CustomerParams, body: CustomerUpdateInput, ...replies({ 200: CustomerWritten }, { summary: "Update a customer" }) })
    .delete(
      "/customers/:id",
      async ({ params }) => {
        await organization.removeCustomer(params.id);
        await keys.load();
        return { message: "Customer deleted successfully" };
      },
      { params: CustomerParams, ...replies({ 200: Deleted }, { summary: "Delete a customer", description: "Its teams and keys stay, detached from it." }) },
    );
}

/** Spec 4.5: the deprecated DELETE /api/teams/{team_id}, same handler, pointing at its successor. */
export function deprecatedTeamRoutes(organization: Organization, keys: VirtualKeyStore) {
  return new Elysia({ name: "governance-deprecated-teams" }).delete(
    "/api/teams/:team_id",
    ({ params, set }) => {
      markDeprecated(set, `/api/governance/teams/${encodeURIComponent(params.team_id)}`);
      return removeTeam(organization, keys, params.team_id);
    },
    { params: TeamParams, ...replies({ 200: Deleted }, { summary: "Delete a team (deprecated)", description: "Answers with `Deprecation: true` and a `Link` to DELETE /api/governance/teams/{team_id}, which it does the same as." }) },
  );
}
