import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { expectGatewayError } from "../support/gateway-error";
import { DIMENSION, putConfig, readConfig, SECRETS, startWarpTestbed, usableConfig, type WarpTestbed, writeConfig } from "./support";

let bed: WarpTestbed;
beforeAll(async () => {
  bed = await startWarpTestbed();
});
afterAll(() => bed.close());

/** A stored configuration every refused write must leave untouched (read-after-write). */
const BASELINE = usableConfig({ api_key_id: "openai-main", max_iterations: 3, system_prompt_suffix: "Answer in French." });
let baselineView: Record<string, unknown>;
beforeEach(async () => {
  baselineView = await writeConfig(bed.gw, BASELINE);
});

async function expectRefused(body: unknown, param: string) {
  await expectGatewayError(await putConfig(bed.gw, body), 400, { param, errorType: /^caller_/ });
  expect(await readConfig(bed.gw)).toEqual(baselineView);
}

const repeat = <T>(count: number, make: (index: number) => T) => Array.from({ length: count }, (_, index) => make(index));

describe("rule 1: every write replaces the stored values whole", () => {
  test("omitted api_key_id writes an empty value and omitted additional_models clears the list", async () => {
    const full = await writeConfig(bed.gw, usableConfig({ api_key_id: "openai-backup", additional_models: [{ provider: "house-llm", model: "big" }], system_prompt_suffix: "Be brief.", history_retention_days: 7 }));
    expect(full).toMatchObject({ api_key_id: "openai-backup", additional_models: [{ provider: "house-llm", model: "big" }], system_prompt_suffix: "Be brief.", history_retention_days: 7 });
    const replaced = await writeConfig(bed.gw, usableConfig());
    for (const view of [replaced, await readConfig(bed.gw)]) {
      expect(view.api_key_id).toBe("");
      expect(view).not.toHaveProperty("additional_models");
      expect(view).toMatchObject({ system_prompt_suffix: "", history_retention_days: 30, max_iterations: 8 });
    }
  });
});

describe("rule 2: enabled=true needs provider, model, embedding_provider, embedding_model and embedding_dimension >= 1", () => {
  const blanks = [
    ["omitted", undefined],
    ["empty", ""],
    ["whitespace only", " \t "],
  ] as const;
  for (const field of ["provider", "model", "embedding_provider", "embedding_model"] as const) {
    for (const [label, value] of blanks) {
      test(`${field} ${label} is a 400 naming ${field}`, async () => {
        const body: Record<string, unknown> = usableConfig();
        if (value === undefined) delete body[field];
        else body[field] = value;
        await expectRefused(body, field);
      });
    }
  }
  for (const [label, value] of [
    ["omitted", undefined],
    ["0", 0],
  ] as const) {
    test(`embedding_dimension ${label} is a 400 naming embedding_dimension`, async () => {
      const body: Record<string, unknown> = usableConfig({ embedding_dimension: value });
      if (value === undefined) delete body.embedding_dimension;
      await expectRefused(body, "embedding_dimension");
    });
  }
});

describe("rule 3: with enabled=false those may be empty", () => {
  test("an empty disabled configuration is stored and reads back as not configured", async () => {
    const written = await writeConfig(bed.gw, { enabled: false });
    expect(written).toMatchObject({ configured: false, enabled: false, provider: "", model: "", embedding_provider: "", embedding_model: "", embedding_dimension: 0 });
    expect(await readConfig(bed.gw)).toEqual(written);
  });
});

describe("rule 4: a provider not registered in the deployment is a 400", () => {
  // `mistral` is a built-in provider name, but this deployment never configured it.
  for (const unregistered of ["no-such-provider", "mistral"]) {
    for (const enabled of [true, false]) {
      test(`provider '${unregistered}' (enabled=${enabled})`, () => expectRefused(usableConfig({ enabled, provider: unregistered }), "provider"));
      test(`embedding_provider '${unregistered}' (enabled=${enabled})`, () => expectRefused(usableConfig({ enabled, embedding_provider: unregistered }), "embedding_provider"));
    }
  }
  for (const registered of ["openai", "house-llm"]) {
    test(`'${registered}' (${registered === "openai" ? "built-in, configured" : "custom"}) is accepted`, async () => {
      const written = await writeConfig(bed.gw, usableConfig({ provider: registered, embedding_provider: registered }));
      expect(written).toMatchObject({ provider: registered, embedding_provider: registered });
      expect(await readConfig(bed.gw)).toEqual(written);
    });
  }
});

describe("rule 5: additional_models must be complete, registered and distinct, whatever enabled says", () => {
  const cases: Array<[string, unknown[], string]> = [
    ["an entry without a provider", [{ model: "big" }], "additional_models[0].provider"],
    ["an entry without a model", [{ provider: "house-llm" }], "additional_models[0].model"],
    ["a blank provider", [{ provider: "  ", model: "big" }], "additional_models[0].provider"],
    ["a blank model", [{ provider: "house-llm", model: "" }], "additional_models[0].model"],
    ["an unregistered provider", [{ provider: "house-llm", model: "big" }, { provider: "groq", model: "llama" }], "additional_models[1].provider"],
    ["the default's (provider, model)", [{ provider: "openai", model: "gpt-4o-mini" }], "additional_models[0]"],
    ["another entry's (provider, model)", [{ provider: "house-llm", model: "big" }, { provider: "openai", model: "gpt-4o" }, { provider: "house-llm", model: "big", api_key_id: "house-key" }], "additional_models[2]"],
    ["a key of another provider", [{ provider: "house-llm", model: "big", api_key_id: "openai-main" }], "additional_models[0].api_key_id"],
    ["more than 20 entries", repeat(21, (index) => ({ provider: "house-llm", model: `model-${index}` })), "additional_models"],
  ];
  for (const [label, entries, param] of cases) {
    for (const enabled of [true, false]) {
      test(`${label} is a 400 (enabled=${enabled})`, () => expectRefused(usableConfig({ enabled, additional_models: entries }), param));
    }
  }

  test("20 distinct entries are stored in order; an entry's key reference is kept, an absent one stays absent", async () => {
    const entries = repeat(20, (index) => (index === 0 ? { provider: "openai", model: "gpt-4o", api_key_id: "openai-backup" } : { provider: "house-llm", model: `model-${index}` }));
    const written = await writeConfig(bed.gw, usableConfig({ additional_models: entries }));
    expect(written.additional_models).toEqual(entries);
    expect((await readConfig(bed.gw)).additional_models).toEqual(entries);
  });

  test("the same model on another provider is a different pair", async () => {
    const written = await writeConfig(bed.gw, usableConfig({ additional_models: [{ provider: "house-llm", model: "gpt-4o-mini" }] }));
    expect(written.additional_models).toEqual([{ provider: "house-llm", model: "gpt-4o-mini" }]);
  });
});

describe("rule 6: zero (or nothing) resolves to the default before validation", () => {
  const DEFAULTS = { max_iterations: 8, request_timeout_seconds: 120, history_retention_days: 30, semantic_search_threshold: 0.8, semantic_search_limit: 10 } as const;
  for (const [field, fallback] of Object.entries(DEFAULTS)) {
    test(`${field}: 0 is accepted and reads back as ${fallback}`, async () => {
      expect((await writeConfig(bed.gw, usableConfig({ [field]: 0 })))[field]).toBe(fallback);
      expect((await readConfig(bed.gw))[field]).toBe(fallback);
    });
    test(`${field}: omitted reads back as ${fallback}`, async () => {
      expect((await writeConfig(bed.gw, usableConfig()))[field]).toBe(fallback);
    });
  }
  test("log_vector_store_namespace: empty reads back as GatewayWarpLogs, a name is kept", async () => {
    expect((await writeConfig(bed.gw, usableConfig({ log_vector_store_namespace: "" }))).log_vector_store_namespace).toBe("GatewayWarpLogs");
    expect((await writeConfig(bed.gw, usableConfig({ log_vector_store_namespace: "Team42" }))).log_vector_store_namespace).toBe("Team42");
  });
});

describe("the bounds of 2.1", () => {
  const outside: Array<[string, unknown]> = [
    ["max_iterations", 21],
    ["max_iterations", -1],
    ["max_iterations", 2.5],
    ["request_timeout_seconds", -1],
    ["history_retention_days", -1],
    ["semantic_search_threshold", 1.01],
    ["semantic_search_threshold", -0.1],
    ["semantic_search_limit", 26],
    ["semantic_search_limit", -1],
    ["embedding_dimension", -1],
    ["enabled", "yes"],
  ];
  for (const [field, value] of outside) test(`${field} = ${JSON.stringify(value)} is a 400 naming ${field}`, () => expectRefused(usableConfig({ [field]: value }), field));

  const inside: Array<[string, unknown]> = [
    ["max_iterations", 20],
    ["max_iterations", 1],
    ["request_timeout_seconds", 3600],
    ["history_retention_days", 100_000],
    ["semantic_search_threshold", 1],
    ["semantic_search_threshold", 0.05],
    ["semantic_search_limit", 25],
    ["semantic_search_limit", 1],
  ];
  for (const [field, value] of inside) {
    test(`${field} = ${value} is kept`, async () => {
      expect((await writeConfig(bed.gw, usableConfig({ [field]: value })))[field]).toBe(value);
      expect((await readConfig(bed.gw))[field]).toBe(value);
    });
  }
});

describe("key references name a configured key of that provider", () => {
  const refused: Array<[string, Record<string, unknown>]> = [
    ["api_key_id", { api_key_id: "no-such-key" }],
    ["api_key_id", { api_key_id: "house-key" }],
    ["api_key_id", { enabled: false, provider: "", api_key_id: "openai-main" }],
    ["embedding_api_key_id", { embedding_api_key_id: "no-such-key" }],
    ["embedding_api_key_id", { embedding_provider: "house-llm", embedding_api_key_id: "openai-main" }],
  ];
  for (const [param, overrides] of refused) test(`${param} ${JSON.stringify(overrides)} is a 400`, () => expectRefused(usableConfig(overrides), param));

  test("references are returned in the clear; empty references are valid", async () => {
    const written = await writeConfig(bed.gw, usableConfig({ api_key_id: "openai-backup", embedding_provider: "house-llm", embedding_api_key_id: "house-key" }));
    expect(written).toMatchObject({ api_key_id: "openai-backup", embedding_api_key_id: "house-key" });
    expect(await writeConfig(bed.gw, usableConfig({ api_key_id: "", embedding_api_key_id: "" }))).toMatchObject({ api_key_id: "", embedding_api_key_id: "" });
  });
});

describe("the read shape of 2.2", () => {
  test("carries every resolved field, vector_store_connected, and never a credential", async () => {
    const view = await writeConfig(bed.gw, usableConfig({ api_key_id: "openai-main", embedding_api_key_id: "openai-backup", additional_models: [{ provider: "house-llm", model: "big", api_key_id: "house-key" }] }));
    expect(view).toEqual({
      configured: true,
      enabled: true,
      provider: "openai",
      model: "gpt-4o-mini",
      api_key_id: "openai-main",
      additional_models: [{ provider: "house-llm", model: "big", api_key_id: "house-key" }],
      max_iterations: 8,
      request_timeout_seconds: 120,
      history_retention_days: 30,
      system_prompt_suffix: "",
      embedding_provider: "openai",
      embedding_model: "text-embedding-3-small",
      embedding_api_key_id: "openai-backup",
      embedding_dimension: DIMENSION,
      log_vector_store_namespace: "GatewayWarpLogs",
      semantic_search_threshold: 0.8,
      semantic_search_limit: 10,
      vector_store_connected: true,
    });
    const text = await (await bed.gw.admin("/api/warp/config")).text();
    for (const secret of SECRETS) expect(text).not.toContain(secret);
  });

  const configured: Array<[string, Record<string, unknown>, boolean]> = [
    ["enabled and complete, with a key", usableConfig({ api_key_id: "openai-main" }), true],
    ["enabled and complete, without any key (a key is not part of the test)", usableConfig({ api_key_id: "", embedding_api_key_id: "" }), true],
    ["complete but disabled", usableConfig({ enabled: false }), false],
    ["disabled with only a model", { enabled: false, provider: "openai", model: "gpt-4o-mini" }, false],
  ];
  for (const [label, body, expected] of configured) {
    test(`configured is ${expected} when ${label}`, async () => {
      expect((await writeConfig(bed.gw, body)).configured).toBe(expected);
      expect((await readConfig(bed.gw)).configured).toBe(expected);
    });
  }
});
