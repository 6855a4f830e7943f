/**
 * Sends extreme values to every route of a gateway and reports each answer of 500 (or a dropped
 * connection): `npx bun test/fuzz/every-route.ts [--ids] [--restarts] [--only <path part>]`. Not part
 * of `bun test` (a whole run takes 8-25 minutes); run it after changing schemas or stores. A 500
 * an upstream answered (error_type provider_…) is the mock's, passed through, and not reported.
 *
 * For each route with a body schema, a body TypeBox makes from the schema is sent with one field
 * at a time (two levels deep) replaced by an extreme value; each query parameter gets odd strings;
 * each path parameter odd ids. `--ids` fills path parameters with ids the gateway answered with
 * (seeded objects first), so updates reach real objects. Afterwards every list is read again and
 * the gateway restarted on its database: a value that was stored but cannot be read back shows
 * there. `--restarts` restarts after every route, naming the route that broke the start.
 *
 * Every route that takes a body also gets JSON nested to the gateway's limit (MAX_JSON_DEPTH,
 * past the 1,000 levels SQLite's JSON functions read: on an inference route, the row that once
 * stopped the request log), one level past it and 100,000 levels past it: a body past the limit
 * taken (2xx), or answered slowly (the event loop held), is reported. At the end a marked request
 * must reach the log, and no log row may have been lost.
 * Exits 1 when anything was found.
 */
import { parseArgs } from "node:util";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { startGateway, type TestGateway } from "../support/gateway";
import { startMockOpenAI } from "../support/mock-openai";

const { values: args } = parseArgs({ args: Bun.argv.slice(2), options: { ids: { type: "boolean", default: false }, restarts: { type: "boolean", default: false }, only: { type: "string" } } });

interface Route {
  method: string;
  path: string;
  hooks: { body?: TSchema; query?: TSchema };
}
type Json = unknown;
type SchemaNode = { type?: string; maximum?: number; properties?: Record<string, SchemaNode>; items?: SchemaNode; anyOf?: SchemaNode[] };

const NUMBERS = [1e308, -1e308, 2 ** 53 + 2, 2 ** 31, 2 ** 32 + 1, -1, 0, 0.5, 1e15, 8.64e15];
const STRINGS = ["", "x".repeat(70_000), "\u0000\ud800", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z", "+275760-09-13T00:00:00Z", "1e400", "-1", "99999999Y", "99999999999d", "regex:(", "env.NONEXISTENT", "http://[::1", "a/b/../../c"];
const QUERY_VALUES = ["-1", "1e400", "99999999999999999999", "abc", "", "2026-02-30T00:00:00Z", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z", "-999999999", "0", "1.5", "true", "%", "a,b,,", "NaN", "Infinity"];
const PATH_IDS = ["%00", "..%2F..", "x".repeat(3000), "-1", "1e400"];
/** The fuzzed gateway's server.max_json_depth: past SQLite's 1,000 JSON levels, so bodies at the limit reach the log as poison rows would. */
const MAX_JSON_DEPTH = 1_200;
/** A body past the nesting limit is refused before it is parsed: answered slower than this, it held the event loop. */
const REFUSED_WITHIN_MS = 250;
/** Objects made before fuzzing, so that `--ids` reaches real ones. */
const SEEDS: Array<[string, Json]> = [
  ["/api/governance/teams", { name: "seed-team" }],
  ["/api/governance/customers", { name: "seed-customer" }],
  ["/api/governance/virtual-keys", { name: "seed-vk", budgets: [{ max_limit: 10, reset_duration: "1d" }] }],
  ["/api/governance/routing-rules", { name: "seed-rule", cel_expression: "true == false", targets: [{ provider: "openai", model: "x" }] }],
  ["/api/agents", { name: "seed-agent", url: "http://127.0.0.1:9/a2a" }],
  ["/api/mcp/client", { name: "seed_mcp", connection_type: "http", connection_string: "http://127.0.0.1:9/mcp" }],
];
/** Routes that answer a stream nobody ends: read once they would hold the run. */
const ENDLESS = /stream|live|events|subscribe|sse/i;

function extremesFor(schema: SchemaNode | undefined): Json[] {
  switch (schema?.type) {
    case "number":
    case "integer":
      return [...NUMBERS, ...(typeof schema.maximum === "number" ? [schema.maximum, schema.maximum + 1] : [])];
    case "string":
      return STRINGS;
    case "array":
      return [[], Array.from({ length: 5000 }, () => "x"), [null], [{}]];
    case "object":
      return [{}, { constructor: "x" }, null];
  }
  if (schema?.anyOf) return [...new Set(schema.anyOf.flatMap(extremesFor))].slice(0, 30);
  return [null, 1e308, "", {}];
}

/** Every property path of a schema, two levels deep, through arrays' items. */
function fieldsOf(schema: SchemaNode | undefined, prefix: string[] = [], depth = 0): Array<{ path: string[]; schema: SchemaNode }> {
  const properties = schema?.properties ?? schema?.anyOf?.find((option) => option.properties)?.properties;
  if (!properties || depth > 2) return [];
  return Object.entries(properties).flatMap(([key, field]) => {
    const path = [...prefix, key];
    const items = field.type === "array" ? fieldsOf(field.items, [...path, "0"], depth + 1) : [];
    return [{ path, schema: field }, ...fieldsOf(field, path, depth + 1), ...items];
  });
}

/** Fields an inference body needs to reach a provider, where the schema's own example leaves them empty. */
const INFERENCE_FIELDS: Record<string, Json> = {
  model: "openai/gpt-4o-mini",
  modelId: "openai/gpt-4o-mini",
  messages: [{ role: "user", content: "hi" }],
  contents: [{ role: "user", parts: [{ text: "hi" }] }],
  input: "hi",
  prompt: "hi",
};

function exampleOf(schema: TSchema | undefined): Json {
  let example: Json;
  try {
    example = schema ? Value.Create(schema) : undefined;
  } catch {
    return {};
  }
  if (!example || typeof example !== "object" || Array.isArray(example)) return example;
  const filledIn = example as Record<string, Json>;
  for (const [field, value] of Object.entries(INFERENCE_FIELDS)) {
    const empty = filledIn[field] === "" || (Array.isArray(filledIn[field]) && (filledIn[field] as Json[]).length === 0);
    if (field in filledIn && empty) filledIn[field] = value;
  }
  return filledIn;
}

/** `body` (JSON text) with one more field of nested arrays, so that the whole body is `depth` levels deep. */
function nestedBody(body: Json, depth: number): string {
  const base = body && typeof body === "object" && !Array.isArray(body) ? JSON.stringify(body) : "{}";
  const nested = `${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}`;
  return base === "{}" ? `{"fuzz_deep":${nested}}` : `${base.slice(0, -1)},"fuzz_deep":${nested}}`;
}

function withField(body: Json, path: string[], value: Json): Json {
  const copy = structuredClone(body ?? {}) as Record<string, Json>;
  let at = copy;
  for (const key of path.slice(0, -1)) {
    if (at[key] === null || typeof at[key] !== "object") at[key] = /^\d+$/.test(key) ? [] : {};
    at = at[key] as Record<string, Json>;
  }
  at[path.at(-1)!] = value;
  return copy;
}

class Fuzzer {
  readonly found = new Map<string, string>();
  /** Ids, names and providers the gateway answered with, to fill path parameters. */
  readonly ids = new Set(["openai", "k1"]);

  constructor(public gw: TestGateway) {}

  /** `body` goes as JSON; `raw`, JSON text already, as it is. */
  async send(method: string, path: string, body: Json, what: string, raw?: string): Promise<number> {
    try {
      const init = raw === undefined ? { json: method === "GET" ? undefined : body } : { body: raw, headers: { "content-type": "application/json" } };
      const response = await this.gw.admin(path, { method, ...init, signal: AbortSignal.timeout(4000) });
      const text = await response.text().catch(() => "");
      if (response.status < 300) this.collectIds(text);
      if (response.status === 500 && !/"error_type":"provider_/.test(text)) this.report(`${method} ${path.split("?")[0]} 500`, `${what}: ${text.slice(0, 200)}`);
      return response.status;
    } catch (error) {
      if ((error as Error).name !== "TimeoutError") this.report(`${method} ${path.split("?")[0]} dropped`, `${what}: ${error}`);
      return 0;
    }
  }

  report(key: string, detail: string) {
    if (this.found.has(key)) return;
    this.found.set(key, detail);
    console.log(`FOUND ${key} (${detail.slice(0, 300)})`);
  }

  private collectIds(text: string) {
    const visit = (value: Json, key: string): void => {
      if (typeof value === "string" && value.isWellFormed() && /(^|_)(id|name|provider)$/.test(key) && value.length < 100 && !value.includes(" ")) this.ids.add(value);
      else if (Array.isArray(value)) value.forEach((item) => visit(item, key));
      else if (value && typeof value === "object") for (const [name, field] of Object.entries(value)) visit(field, name);
    };
    try {
      visit(JSON.parse(text), "");
    } catch {}
  }

  /** The route's path with its parameters filled: with an id that reaches something (not a 404) under `--ids`. */
  async pathOf(route: Route): Promise<string> {
    if (!args.ids || !route.path.includes(":") || route.method === "DELETE") return filled(route.path);
    for (const id of this.ids) {
      const path = filled(route.path, encodeURIComponent(id));
      const status = await this.gw
        .admin(path, { method: route.method, json: route.method === "GET" ? undefined : exampleOf(route.hooks.body), signal: AbortSignal.timeout(2000) })
        .then(async (response) => (await response.arrayBuffer(), response.status))
        .catch(() => 0);
      if (status !== 404 && status !== 0) return path;
    }
    return filled(route.path);
  }

  async fuzz(route: Route) {
    const path = await this.pathOf(route);
    if (route.method === "GET" && ENDLESS.test(path)) return;
    const example = exampleOf(route.hooks.body);
    if (route.hooks.body && route.method !== "GET") {
      await this.send(route.method, path, example, "the schema's example");
      for (const field of fieldsOf(route.hooks.body as SchemaNode)) {
        for (const value of extremesFor(field.schema)) await this.send(route.method, path, withField(example, field.path, value), `${field.path.join(".")}=${JSON.stringify(value)?.slice(0, 40)}`);
      }
    }
    for (const name of Object.keys((route.hooks.query as SchemaNode | undefined)?.properties ?? {})) {
      for (const value of QUERY_VALUES) await this.send(route.method, `${path}?${name}=${encodeURIComponent(value)}`, example, `?${name}=${value}`);
    }
    for (const id of PATH_IDS) if (route.path.includes(":")) await this.send(route.method, filled(route.path, id), example, `a path id ${id.slice(0, 20)}`);
    if (route.method !== "GET") await this.nest(route, path, example);
  }

  /** Bodies at the nesting limit (taken, and logged on an inference route), one level past it and far past it (refused, at once). */
  async nest(route: Route, path: string, example: Json) {
    await this.send(route.method, path, undefined, `JSON nested ${MAX_JSON_DEPTH} levels (the limit)`, nestedBody(example, MAX_JSON_DEPTH));
    for (const depth of [MAX_JSON_DEPTH + 1, 100_000]) {
      const started = performance.now();
      const status = await this.send(route.method, path, undefined, `JSON nested ${depth} levels`, nestedBody(example, depth));
      const elapsed = performance.now() - started;
      if (status >= 200 && status < 300) this.report(`${route.method} ${route.path} takes JSON past the nesting limit`, `${depth} levels answered ${status}`);
      if (elapsed > REFUSED_WITHIN_MS) this.report(`${route.method} ${route.path} stalls on deep JSON`, `${depth} levels answered ${status} after ${Math.round(elapsed)} ms`);
    }
  }

  /** A request marked after all the others reaches the log, and no row was lost on the way (a poison row once held every row behind it). */
  async checkRequestLog() {
    const marker = `fuzzlogmarker${Date.now()}`;
    await this.send("POST", "/v1/chat/completions", { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: marker }] }, "the log marker");
    const deadline = performance.now() + 15_000;
    let total = 0;
    while (total === 0 && performance.now() < deadline) {
      total = ((await (await this.gw.admin(`/api/logs?content_search=${marker}`)).json()) as { total: number }).total;
      if (total === 0) await Bun.sleep(100);
    }
    if (total === 0) this.report("the request log stopped", "a request made after the fuzzing was not logged within 15 s");
    const { log_queue: queue } = (await (await this.gw.admin("/api/logs/stats")).json()) as { log_queue: { failed: number; dropped: number; quarantined: number } };
    if (queue.failed > 0 || queue.dropped > 0) this.report("request log rows were lost", JSON.stringify(queue));
  }

  /** Every list read again, then the gateway restarted on its database and every list read once more. */
  async readBack(lists: Route[], after: string) {
    for (const list of lists) await this.send("GET", list.path, undefined, `a read ${after}`);
    await this.gw.stop();
    try {
      this.gw = await this.gw.restart();
    } catch (error) {
      this.report(`a restart ${after} failed`, String(error));
      this.gw = await startGateway(CONFIG);
      return;
    }
    for (const list of lists) await this.send("GET", list.path, undefined, `a read after the restart ${after}`);
  }
}

const filled = (path: string, id = "fuzz-id") => path.replace(/:[A-Za-z_]+/g, id).replace(/\*/g, "x");

const upstream = startMockOpenAI();
const CONFIG = { server: { max_json_depth: MAX_JSON_DEPTH }, providers: { openai: { keys: [{ id: "k1", value: "sk-upstream-k1", models: ["*"] }], network_config: { base_url: upstream.baseUrl } } } };
const fuzzer = new Fuzzer(await startGateway(CONFIG));
try {
  const all = (fuzzer.gw.gateway.app as unknown as { routes: Route[] }).routes.filter((route) => ["GET", "POST", "PUT", "PATCH", "DELETE"].includes(route.method));
  const lists = all.filter((route) => route.method === "GET" && !/[:*]/.test(route.path) && !ENDLESS.test(route.path));
  for (const [path, body] of SEEDS) await fuzzer.send("POST", path, body, "a seed");
  for (const list of lists) await fuzzer.send("GET", list.path, undefined, "a read for ids");
  for (const route of all.filter((candidate) => !args.only || candidate.path.includes(args.only))) {
    await fuzzer.fuzz(route);
    if (args.restarts && route.hooks.body && route.method !== "GET") await fuzzer.readBack(lists, `after ${route.method} ${route.path}`);
  }
  await fuzzer.checkRequestLog();
  await fuzzer.readBack(lists, "after every route");
} finally {
  await fuzzer.gw.close();
  upstream.stop();
}
console.log(`${fuzzer.found.size} found`);
process.exit(fuzzer.found.size > 0 ? 1 : 0);
