import { Elysia, t } from "elysia";
import type { AdminAccountRow } from "../db/schema";
import { type AdminAccount, MIN_PASSWORD_LENGTH } from "./admin-account";
import { noteAudit } from "./request-context";
import { replies } from "../http/replies";
import { AuthConfigReply } from "./replies";

const AuthConfigInput = t.Object(
  {
    admin_username: t.String({ minLength: 1 }),
    admin_password: t.Optional(t.String({ minLength: MIN_PASSWORD_LENGTH, description: "omit to keep the current password" })),
    enabled: t.Boolean(),
  },
  { additionalProperties: false },
);

/** The admin account as the dashboard shows it: never the password or its hash. */
const authConfigView = (account: AdminAccountRow | undefined) => ({
  admin_username: account?.username ?? "",
  enabled: account?.enabled ?? false,
  is_configured: account !== undefined,
  managed_by: account?.source ?? null,
});

/** /api/config/auth: the dashboard admin account, the API twin of config.json's `auth`. */
export const authConfigRoutes = (admin: AdminAccount) =>
  new Elysia({ name: "auth-config-routes", prefix: "/api/config/auth" })
    .get("/", async () => authConfigView(await admin.current()), replies({ 200: AuthConfigReply }, { summary: "Get the dashboard admin account" }))
    .put(
      "/",
      async ({ request, body }) => {
        const before = authConfigView(await admin.current());
        const after = authConfigView(await admin.configure(body));
        noteAudit(request, { targetId: body.admin_username, before, after });
        return after;
      },
      { body: AuthConfigInput, ...replies({ 200: AuthConfigReply }, { summary: "Set the dashboard admin account" }) },
    );
