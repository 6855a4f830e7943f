import { createClient } from "@libsql/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { createEndpoint, type EndpointBody, fakeDns } from "../support/webhook-endpoints";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

let gw: TestGateway;
let receiver: WebhookReceiver;
const dns = fakeDns({ "hooks.example.com": ["93.184.216.34"], "sneaky.example.com": ["169.254.169.254"], "mixed.example.com": ["93.184.216.34", "10.1.2.3"],
  // Resolvers may write an embedded IPv4 address dotted, a form URLs never keep.
  "mapped-metadata.example.com": ["::ffff:169.254.169.254"], "nat64-private.example.com": ["64:ff9b::10.0.0.1"], "mapped-public.example.com": ["::ffff:8.88.88.88"],
  "localhost.example.com": ["93.184.216.35"], "metadata.example.com": ["93.184.216.36"], mymetadata: ["93.184.216.37"] });

beforeAll(async () => {
  receiver = startWebhookReceiver();
  gw = await startGateway({ env_references: { allow: ["RECEIVER_TENANT"] } }, { runtime: { resolveHost: dns.resolve } });
});
afterAll(async () => {
  await gw.close();
  receiver.stop();
});

let names = 0;
const create = (fields: Record<string, unknown>) => gw.admin("/api/webhooks", { method: "POST", json: { name: `hook-${++names}`, url: "https://hooks.example.com/in", ...fields } });
const read = async (id: string) => (await (await gw.admin(`/api/webhooks/${id}`)).json()) as EndpointBody;
const update = (id: string, fields: Record<string, unknown>) => gw.admin(`/api/webhooks/${id}`, { method: "PUT", json: fields });

describe("creating, reading, updating and deleting endpoints (spec 2.6, 4.14)", () => {
  test("creation answers 201 with the endpoint and its whsec_ secret, which no later response shows", async () => {
    const response = await create({ name: "orders", events: ["async_job.completed"], include_response: true });
    expect(response.status).toBe(201);
    const { endpoint, secret } = (await response.json()) as { endpoint: EndpointBody; secret: string };
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(endpoint).toMatchObject({ name: "orders", url: "https://hooks.example.com/in", events: ["async_job.completed"], include_response: true, disabled: false, consecutive_failures: 0 });
    for (const field of ["id", "config_hash", "created_at", "updated_at"]) expect(endpoint).toHaveProperty(field);

    const listed = await (await gw.admin("/api/webhooks")).text();
    const single = await (await gw.admin(`/api/webhooks/${endpoint.id}`)).text();
    const updated = await (await update(endpoint.id, { include_response: false })).text();
    for (const text of [listed, single, updated]) expect(text).not.toContain(secret.slice(6));
    expect(JSON.parse(listed).webhooks.map((entry: EndpointBody) => entry.name)).toContain("orders");
  });

  test("names are unique", async () => {
    expect((await create({ name: "unique-one" })).status).toBe(201);
    await expectGatewayError(await create({ name: "unique-one" }), 409, { param: "name" });
  });

  test("events come from the enum; both job events are subscribed when none are given", async () => {
    await expectGatewayError(await create({ events: ["async_job.started"] }), 400);
    const { endpoint } = (await (await create({})).json()) as { endpoint: EndpointBody };
    expect(endpoint.events).toEqual(["async_job.completed", "async_job.failed"]);
  });

  test("zero in any tunable selects its default, and responses carry the resolved value", async () => {
    const zeros = { max_retries: 0, retry_backoff_initial_seconds: 0, retry_backoff_max_seconds: 0, attempt_timeout_seconds: 0, max_response_payload_kbs: 0, max_concurrent_deliveries: 0 };
    const { endpoint } = (await (await create(zeros)).json()) as { endpoint: EndpointBody };
    expect(endpoint).toMatchObject({
      max_retries: 4,
      retry_backoff_initial_seconds: 30,
      retry_backoff_max_seconds: 1800,
      attempt_timeout_seconds: 10,
      max_response_payload_kbs: 256,
      max_concurrent_deliveries: 10,
    });
    const changed = (await (await update(endpoint.id, { max_retries: 7, attempt_timeout_seconds: 3 })).json()) as EndpointBody;
    expect(changed).toMatchObject({ max_retries: 7, attempt_timeout_seconds: 3, retry_backoff_initial_seconds: 30 });
    expect(((await (await update(endpoint.id, { max_retries: 0 })).json()) as EndpointBody).max_retries).toBe(4);
    await expectGatewayError(await update(endpoint.id, { max_retries: -1 }), 400, { param: "max_retries" });
  });

  test("tunables go up to a 32-bit integer; past that they are a 400, not a value that overflows a date or the database", async () => {
    const largest = 2 ** 31 - 1;
    const { endpoint } = (await (await create({ max_retries: largest, retry_backoff_initial_seconds: largest, retry_backoff_max_seconds: largest })).json()) as { endpoint: EndpointBody };
    expect(endpoint).toMatchObject({ max_retries: largest, retry_backoff_initial_seconds: largest, retry_backoff_max_seconds: largest });
    await expectGatewayError(await update(endpoint.id, { max_retries: 1e16 }), 400, { param: "max_retries" });
    await expectGatewayError(await update(endpoint.id, { retry_backoff_initial_seconds: 1e13 }), 400, { param: "retry_backoff_initial_seconds" });
    await expectGatewayError(await create({ attempt_timeout_seconds: largest + 1 }), 400, { param: "attempt_timeout_seconds" });
  });

  test("PUT changes what it is given, keeps the rest, and cannot change the secret", async () => {
    const { endpoint } = (await (await create({ name: "before", disabled: true })).json()) as { endpoint: EndpointBody };
    const renamed = (await (await update(endpoint.id, { name: "after" })).json()) as EndpointBody;
    expect(renamed).toMatchObject({ name: "after", disabled: true, url: endpoint.url });
    expect(renamed.config_hash).not.toBe(endpoint.config_hash);
    await expectGatewayError(await update(endpoint.id, { secret: "whsec_bXlvd24=" }), 400, { param: "secret" });
    await expectGatewayError(await update("no-such-endpoint", { name: "x" }), 404);
  });

  test("delete removes it", async () => {
    const { endpoint } = (await (await create({})).json()) as { endpoint: EndpointBody };
    expect((await gw.admin(`/api/webhooks/${endpoint.id}`, { method: "DELETE" })).status).toBe(200);
    await expectGatewayError(await gw.admin(`/api/webhooks/${endpoint.id}`), 404);
  });
});

describe("headers: env.VAR values, encrypted at rest, redacted, reserved names refused", () => {
  test("values are redacted in responses (env references stay visible) and never stored in the clear", async () => {
    const plain = "Bearer receiver-token-0123456789";
    const { endpoint } = (await (await create({ headers: { Authorization: plain, "X-Tenant": "env.RECEIVER_TENANT" } })).json()) as { endpoint: EndpointBody };
    expect(endpoint.headers).toEqual({ Authorization: "****6789", "X-Tenant": "env.RECEIVER_TENANT" });
    const database = createClient({ url: gw.databaseUrl });
    const rows = await database.execute({ sql: "SELECT * FROM webhook_endpoints WHERE id = ?", args: [endpoint.id] });
    database.close();
    expect(JSON.stringify(rows.rows)).not.toContain("receiver-token");
    expect(JSON.stringify(rows.rows)).not.toContain("RECEIVER_TENANT");
  });

  test("delivery headers the gateway sets cannot be overridden", async () => {
    for (const name of ["webhook-id", "Webhook-Signature", "webhook-timestamp", "Content-Type", "content-length", "Host", "User-Agent"]) {
      await expectGatewayError(await create({ headers: { [name]: "x" } }), 400, { param: `headers.${name}`, errorType: "caller_reserved_header" });
    }
  });

  test("header names must be tokens and env references must name a variable", async () => {
    await expectGatewayError(await create({ headers: { "bad header": "x" } }), 400, { param: "headers.bad header" });
    await expectGatewayError(await create({ headers: { "X-Key": "env.1BAD" } }), 400, { param: "headers.X-Key" });
  });
});

describe("the delivery URL: HTTPS unless allow_private_network; private only with it; link-local and metadata never", () => {
  test("plain http needs allow_private_network", async () => {
    await expectGatewayError(await create({ url: "http://hooks.example.com/in" }), 400, { param: "url", errorType: "caller_insecure_url" });
    expect((await create({ url: "http://hooks.example.com/in", allow_private_network: true })).status).toBe(201);
  });

  test("private, loopback and CGNAT receivers only with allow_private_network", async () => {
    const urls = ["https://10.0.0.8/in", "https://172.20.1.1/in", "https://192.168.1.10/in", "https://127.0.0.1:8443/in", "https://localhost/in"];
    urls.push("https://[::1]/in", "https://[fd12::1]/in", "https://100.64.0.9/in", "https://mixed.example.com/in");
    for (const url of urls) {
      await expectGatewayError(await create({ url }), 400, { param: "url", errorType: "caller_receiver_refused" });
      expect({ url, status: (await create({ url, allow_private_network: true })).status }).toEqual({ url, status: 201 });
    }
  });

  test("link-local and metadata addresses are refused in every spelling, even with allow_private_network", async () => {
    const urls = [
      "http://169.254.169.254/latest/meta-data",
      "http://169.254.10.1/",
      "http://2852039166/",
      "http://0xa9fea9fe/",
      "http://0251.0376.0251.0376/",
      "http://[fe80::1]/",
      "http://[::ffff:169.254.169.254]/",
      "http://[::ffff:a9fe:a9fe]/",
      "http://[64:ff9b::a9fe:a9fe]/",
      "http://[2002:a9fe:a9fe::1]/",
      "http://[fd00:ec2::254]/",
      "http://100.100.100.200/",
      "http://metadata.google.internal/computeMetadata/v1",
      "http://0.0.0.0/",
      "https://sneaky.example.com/in",
    ];
    for (const url of urls) await expectGatewayError(await create({ url, allow_private_network: true }), 400, { param: "url", errorType: "caller_receiver_refused" });
  });

  test("each address is refused or allowed as its kind of network says, and the refusal names the kind", async () => {
    const kinds: Record<string, string[]> = {
      unroutable: ["0.1.2.3", "224.0.0.1", "239.1.1.1", "240.0.0.1", "192.0.0.8", "192.0.2.1", "198.51.100.7", "203.0.113.9", "::", "ff02::1", "2001:db8::5", "::2"],
      "link-local": ["169.254.10.1", "fe80::1", "febf::1"],
      metadata: ["169.254.169.254", "100.100.100.200", "fd00:ec2::254", "::a9fe:a9fe", "::ffff:a9fe:a9fe", "64:ff9b::a9fe:a9fe", "2002:a9fe:a9fe::1", "2002:a9fe:a9fe:1:2:3:4:5"],
      loopback: ["127.0.0.5", "::1", "::ffff:127.0.0.1", "::7f00:1"],
      cgnat: ["100.64.0.9", "100.127.255.254"],
      private: ["10.0.0.1", "172.16.0.1", "172.31.255.1", "192.168.0.1", "198.18.0.1", "198.19.255.1", "fc00::1", "fdff::1", "::ffff:10.1.2.3", "64:ff9b::a01:203", "2002:c0a8:101::1"],
      public: ["8.8.8.8", "32.2.169.254", "172.32.0.1", "100.128.0.1", "198.20.0.1", "169.255.0.1", "2606:4700::1111", "2606:4700:1:2:3:4:5:6", "2064:ff9b::a9fe:a9fe", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1", "fec0::1"],
    };
    const messageOf = async (response: Response) => (response.status === 201 ? "201" : ((await response.json()) as { error: { message: string } }).error.message);
    const outcomes: Array<{ address: string; closed: string; open: string }> = [];
    const expected: typeof outcomes = [];
    for (const [kind, addresses] of Object.entries(kinds)) {
      for (const address of addresses) {
        const url = new URL(`https://${address.includes(":") ? `[${address}]` : address}/in`);
        outcomes.push({ address, closed: await messageOf(await create({ url: url.href })), open: await messageOf(await create({ url: url.href, allow_private_network: true })) });
        // The message names the address as the URL parser normalised it (`::ffff:7f00:1`).
        const refused = `the delivery URL is not allowed: ${url.hostname.replace(/^\[(.*)\]$/, "$1")} is ${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind} address`;
        if (kind === "public") expected.push({ address, closed: "201", open: "201" });
        else if (["unroutable", "link-local", "metadata"].includes(kind)) expected.push({ address, closed: `${refused}, which is never allowed`, open: `${refused}, which is never allowed` });
        else expected.push({ address, closed: `${refused}; set allow_private_network to deliver there`, open: "201" });
      }
    }
    expect(outcomes).toEqual(expected);
  });

  test("a name resolving to an IPv4 address embedded in IPv6 and written dotted is judged by that IPv4 address", async () => {
    await expectGatewayError(await create({ url: "https://mapped-metadata.example.com/in", allow_private_network: true }), 400, { param: "url", errorType: "caller_receiver_refused" });
    await expectGatewayError(await create({ url: "https://nat64-private.example.com/in" }), 400, { param: "url", errorType: "caller_receiver_refused" });
    expect((await create({ url: "https://nat64-private.example.com/in", allow_private_network: true })).status).toBe(201);
    expect((await create({ url: "https://mapped-public.example.com/in" })).status).toBe(201);
  });

  test("only the names that mean this machine or the metadata service are taken for them: names that merely begin so are resolved", async () => {
    for (const url of ["https://metadata/in", "https://metadata.google.internal./in"]) await expectGatewayError(await create({ url, allow_private_network: true }), 400, { param: "url", errorType: "caller_receiver_refused" });
    await expectGatewayError(await create({ url: "https://api.localhost/in" }), 400, { param: "url", errorType: "caller_receiver_refused" });
    for (const url of ["https://localhost.example.com/in", "https://metadata.example.com/in", "https://mymetadata/in"]) expect({ url, status: (await create({ url })).status }).toEqual({ url, status: 201 });
  });

  test("credentials in the URL and schemes other than http(s) are refused", async () => {
    await expectGatewayError(await create({ url: "https://user:pass@hooks.example.com/in" }), 400, { param: "url" });
    await expectGatewayError(await create({ url: "ftp://hooks.example.com/in" }), 400, { param: "url" });
    await expectGatewayError(await create({ url: "not a url" }), 400, { param: "url" });
  });

  test("a host that does not resolve yet is accepted: the address is checked again at delivery", async () => {
    expect((await create({ url: "https://not-yet.example.com/in" })).status).toBe(201);
  });
});

describe("secret rotation and test deliveries", () => {
  test("rotate-secret returns a new secret; deliveries are signed with it, no longer with the old one", async () => {
    const endpoint = await createEndpoint(gw, receiver, "/rotating");
    const oldSecret = receiver.secrets.get("/rotating")!;
    const rotated = await gw.admin(`/api/webhooks/${endpoint.id}/rotate-secret`, { method: "POST" });
    const { secret } = (await rotated.json()) as { secret: string };
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(oldSecret);

    const refused = (await (await gw.admin(`/api/webhooks/${endpoint.id}/test`, { method: "POST" })).json()) as { status: string; last_status_code: number };
    expect(refused).toMatchObject({ status: "failed", last_status_code: 401 });
    expect(receiver.takeRejections().map((refused) => refused.path)).toEqual(["/rotating"]);

    receiver.secrets.set("/rotating", secret);
    const accepted = await gw.admin(`/api/webhooks/${endpoint.id}/test`, { method: "POST" });
    expect(await accepted.json()).toMatchObject({ status: "delivered", last_status_code: 200, event: "webhook.test" });
    expect(receiver.received.at(-1)!.payload).toMatchObject({ event: "webhook.test", data: { endpoint_id: endpoint.id } });
  });

  test("a test delivery makes one attempt and reports it", async () => {
    const endpoint = await createEndpoint(gw, receiver, "/test-once", { max_retries: 5 });
    receiver.replies.push(503);
    const result = (await (await gw.admin(`/api/webhooks/${endpoint.id}/test`, { method: "POST" })).json()) as { status: string; attempts: unknown[] };
    expect(result.status).toBe("exhausted");
    expect(result.attempts).toEqual([expect.objectContaining({ attempt: 1, status_code: 503, outcome: "retryable" })]);
  });

  test("endpoint stats follow the outcomes", async () => {
    const endpoint = await createEndpoint(gw, receiver, "/stats");
    receiver.replies.push(500, 500);
    for (let index = 0; index < 2; index++) await gw.admin(`/api/webhooks/${endpoint.id}/test`, { method: "POST" });
    const failing = await read(endpoint.id);
    expect(failing.consecutive_failures).toBe(2);
    expect(failing.last_failure_at).toEqual(expect.any(String));
    expect(failing.last_success_at).toBeUndefined();
    await gw.admin(`/api/webhooks/${endpoint.id}/test`, { method: "POST" });
    const healthy = await read(endpoint.id);
    expect(healthy.consecutive_failures).toBe(0);
    expect(healthy.last_success_at).toEqual(expect.any(String));
  });
});
