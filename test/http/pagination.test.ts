import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";

let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway({ edition: "enterprise" });
});
afterAll(() => gw.close());

/** Every management list that pages with `limit` and `offset`. */
const LISTS = [
  "/api/agents/history",
  "/api/webhooks/deliveries",
  "/api/api-keys",
  "/api/governance/audit-logs",
  "/api/governance/virtual-keys",
  "/api/governance/teams",
  "/api/governance/customers",
  "/api/governance/routing-rules",
  "/api/governance/pricing-overrides",
];

describe("limit and offset are whole numbers the database can take", () => {
  for (const list of LISTS) {
    test(`${list}: a fraction or an integer past 2^53 is a 400 naming the parameter; whole numbers page`, async () => {
      await expectGatewayError(await gw.admin(`${list}?limit=1.5`), 400, { param: "limit" });
      await expectGatewayError(await gw.admin(`${list}?offset=0.5`), 400, { param: "offset" });
      await expectGatewayError(await gw.admin(`${list}?offset=100000000000000000000`), 400, { param: "offset" });
      const page = await gw.admin(`${list}?limit=2&offset=${Number.MAX_SAFE_INTEGER}`);
      expect(page.status).toBe(200);
      expect(JSON.stringify(await page.json())).not.toContain('"id"');
    });
  }
});
