import { type Static, Type as t } from "@sinclair/typebox";
import { ProviderSeed } from "../provider-registry/schemas";

/** config.json: everything optional; the database is the source of truth once seeded. */
export const GatewayConfig = t.Object(
  {
    server: t.Optional(
      t.Object({
        host: t.Optional(t.String()),
        port: t.Optional(t.Integer({ minimum: 0, maximum: 65535 })),
        plugin_download_private_allowlist: t.Optional(t.Array(t.String())),
      }),
    ),
    database: t.Optional(t.Object({ url: t.Optional(t.String()), auth_token: t.Optional(t.String()) })),
    edition: t.Optional(t.Union([t.Literal("oss"), t.Literal("enterprise")])),
    /** OSS setup lock token (spec 5.6); `env.NAME` allowed; GATEWAY_SETUP_TOKEN wins; generated when absent. */
    setup_token: t.Optional(t.String()),
    /** The dashboard admin account; applied at start whenever this section changes. */
    auth: t.Optional(
      t.Object(
        {
          admin_username: t.Optional(t.String({ minLength: 1 })),
          /** `env.NAME` allowed; stored only as an argon2id hash. */
          admin_password: t.Optional(t.String({ minLength: 1 })),
          /** Default true when credentials are given. */
          enabled: t.Optional(t.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    enforce_auth_on_inference: t.Optional(t.Boolean()),
    providers: t.Optional(t.Record(t.String(), ProviderSeed)),
  },
  { additionalProperties: false },
);
export type GatewayConfig = Static<typeof GatewayConfig>;
