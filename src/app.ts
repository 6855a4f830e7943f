import { Elysia } from "elysia";
import { createAccessControl } from "./access";
import type { GatewayConfig } from "./config/schema";
import { seedFromConfig } from "./config/seed";
import { secretBoxFor } from "./crypto/secret-box";
import { openDatabase } from "./db/client";
import { errorHandler } from "./http/error-handler";
import { systemRoutes } from "./http/system-routes";
import { inferenceMounts } from "./inference/mounts";
import { providerRoutes } from "./provider-registry/routes";
import { ProviderStore } from "./provider-registry/store";

export interface GatewayOptions {
  config: GatewayConfig;
  /** libSQL URL: `file:...` for the embedded database, `libsql://` or `http://` for a server. */
  databaseUrl: string;
  env?: Record<string, string | undefined>;
}

/** The composition root: stores, registries and route plugins, read top to bottom. */
export async function createGateway({ config, databaseUrl, env = process.env }: GatewayOptions) {
  const database = await openDatabase(databaseUrl, config.database?.auth_token);
  const secrets = await secretBoxFor(database.db, env.GATEWAY_ENCRYPTION_KEY);
  const providers = new ProviderStore(database.db, secrets);
  await providers.load();
  await seedFromConfig(database.db, config, providers);
  const access = await createAccessControl({ db: database.db, config, env, secrets });

  const app = new Elysia()
    .use(errorHandler)
    .use(access.guard)
    .use(systemRoutes(database.ping))
    .use(access.routes)
    .use(providerRoutes(providers))
    .use(inferenceMounts({ providers, hooks: [] }));

  return {
    app,
    providers,
    listen(port: number, hostname: string) {
      app.listen({ port, hostname });
      return app.server!;
    },
    async stop() {
      await app.stop(true);
      database.close();
    },
  };
}

export type Gateway = Awaited<ReturnType<typeof createGateway>>;
