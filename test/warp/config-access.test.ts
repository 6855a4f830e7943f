import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Client, createClient } from "@libsql/client";
import { AUTH_CONFIG, bearer, call, createApiKey } from "../access/access-client";
import { expectGatewayError } from "../support/gateway-error";
import { SETUP_TOKEN } from "../support/gateway";
import { putConfig, readConfig, startWarpTestbed, usableConfig, type WarpTestbed, writeConfig } from "./support";

describe("who may write: on OSS only the local admin", () => {
  let bed: WarpTestbed;
  let stored: Record<string, unknown>;
  beforeAll(async () => {
    bed = await startWarpTestbed();
    stored = await writeConfig(bed.gw, usableConfig());
  });
  afterAll(() => bed.close());

  test("a wrong setup token is a 403 and changes nothing", async () => {
    const refused = await call(bed.gw, "/api/warp/config", { method: "PUT", headers: { "x-gateway-setup-token": `${SETUP_TOKEN}-wrong` }, json: usableConfig({ model: "gpt-4o" }) });
    expect(refused.status).toBe(403);
    expect(await readConfig(bed.gw)).toEqual(stored);
  });

  test("no credential is a 401 and changes nothing", async () => {
    const refused = await call(bed.gw, "/api/warp/config", { method: "PUT", json: usableConfig({ model: "gpt-4o" }) });
    expect(refused.status).toBe(401);
    expect(await readConfig(bed.gw)).toEqual(stored);
  });

  test("the local admin writes", async () => {
    expect((await putConfig(bed.gw, usableConfig({ model: "gpt-4o" }))).status).toBe(200);
    expect((await readConfig(bed.gw)).model).toBe("gpt-4o");
  });
});

describe("who may write: in enterprise a caller with Warp:Update", () => {
  let bed: WarpTestbed;
  beforeAll(async () => {
    bed = await startWarpTestbed({ edition: "enterprise", auth: AUTH_CONFIG });
    await writeConfig(bed.gw, usableConfig());
  });
  afterAll(() => bed.close());

  test("without Warp:Update the write is a 403 and changes nothing; reading needs only Warp:View", async () => {
    const viewer = await createApiKey(bed.gw, "warp-viewer", ["Warp:View", "Warp:Create", "Warp:Delete"]);
    const before = await readConfig(bed.gw);
    const read = await call(bed.gw, "/api/warp/config", { headers: bearer(viewer) });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(before);
    const refused = await call(bed.gw, "/api/warp/config", { method: "PUT", headers: bearer(viewer), json: usableConfig({ model: "gpt-4o" }) });
    expect(refused.status).toBe(403);
    expect(await readConfig(bed.gw)).toEqual(before);
  });

  test("with Warp:Update the write is stored", async () => {
    const editor = await createApiKey(bed.gw, "warp-editor", ["Warp:Update"]);
    const written = await call(bed.gw, "/api/warp/config", { method: "PUT", headers: bearer(editor), json: usableConfig({ model: "gpt-4o", max_iterations: 5 }) });
    expect(written.status).toBe(200);
    expect(await readConfig(bed.gw)).toMatchObject({ model: "gpt-4o", max_iterations: 5 });
  });
});

describe("store failures", () => {
  let bed: WarpTestbed;
  let database: Client;
  let stored: Record<string, unknown>;
  beforeAll(async () => {
    bed = await startWarpTestbed();
    stored = await writeConfig(bed.gw, usableConfig({ max_iterations: 6 }));
    // A second connection to the gateway's database, to take the config store away and give it back.
    database = createClient({ url: bed.gw.databaseUrl, timeout: 5_000 });
  });
  afterAll(async () => {
    database.close();
    await bed.close();
  });

  test("503 with the error body while the config store is not available, and the stored value once it is back", async () => {
    await database.execute("ALTER TABLE warp_config RENAME TO warp_config_away");
    try {
      const refusedWrite = await expectGatewayError(await putConfig(bed.gw, usableConfig({ max_iterations: 2 })), 503, { errorType: "gateway_config_store_unavailable" });
      expect(refusedWrite.extra_fields).toMatchObject({ reason: "config_store_unavailable" });
      await expectGatewayError(await bed.gw.admin("/api/warp/config"), 503, { errorType: "gateway_config_store_unavailable" });
      await expectGatewayError((await bed.gw.admin("/api/warp/chat", { method: "POST", json: { message: "hi" } })), 503);
    } finally {
      await database.execute("ALTER TABLE warp_config_away RENAME TO warp_config");
    }
    expect(await readConfig(bed.gw)).toEqual(stored);
  });

  test("500 with the error body on an internal error (a stored value that cannot be read)", async () => {
    const [row] = (await database.execute("SELECT value FROM warp_config")).rows;
    await database.execute({ sql: "UPDATE warp_config SET value = ?", args: ["{not json"] });
    try {
      await expectGatewayError(await bed.gw.admin("/api/warp/config"), 500, { errorType: "gateway_internal_error" });
      await expectGatewayError(await putConfig(bed.gw, usableConfig()), 500, { errorType: "gateway_internal_error" });
    } finally {
      await database.execute({ sql: "UPDATE warp_config SET value = ?", args: [row!.value as string] });
    }
    expect(await readConfig(bed.gw)).toEqual(stored);
  });
});
