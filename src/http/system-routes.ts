import { Elysia } from "elysia";
import packageJson from "../../package.json";

/** /health and /api/version: public, cheap, and honest about the database. */
export const systemRoutes = (pingDatabase: () => Promise<boolean>) =>
  new Elysia({ name: "system" })
    .get("/health", async ({ set }) => {
      const database = (await pingDatabase()) ? "ok" : "unreachable";
      if (database !== "ok") set.status = 503;
      return { status: database === "ok" ? "ok" : "degraded", database };
    })
    .get("/api/version", () => ({ version: packageJson.version, name: packageJson.name }));
