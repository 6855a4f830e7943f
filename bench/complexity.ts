/**
 * What classifying a request's complexity costs and how often it agrees with a person:
 * µs per classification with the cheap signals alone and with the reference prompts, over a
 * hand-labelled set none of whose prompts is a shipped reference. `npx bun bench/complexity.ts`
 */
import { classify, type ComplexityModel } from "../src/governance/complexity/classify";
import { DEFAULT_REFERENCES, DEFAULT_TIERS } from "../src/governance/complexity/default-references";
import { ReferenceSet } from "../src/governance/complexity/reference-set";
import { LABELLED } from "./complexity-labelled";

const ROUNDS = 2_000;

function measure(name: string, model: ComplexityModel) {
  const agreed = LABELLED.filter(({ tier, body }) => classify(body, model).tier === tier).length;
  const adjacent = LABELLED.filter(({ tier, body }) => Math.abs(model.tiers.indexOf(classify(body, model).tier) - model.tiers.indexOf(tier)) <= 1).length;
  for (let round = 0; round < 200; round++) for (const { body } of LABELLED) classify(body, model);
  const started = Bun.nanoseconds();
  for (let round = 0; round < ROUNDS; round++) for (const { body } of LABELLED) classify(body, model);
  const micros = (Bun.nanoseconds() - started) / 1_000 / (ROUNDS * LABELLED.length);
  const percent = (count: number) => `${((100 * count) / LABELLED.length).toFixed(0)} %`;
  console.log(`${name.padEnd(28)} ${micros.toFixed(2).padStart(6)} µs a request   agreement ${percent(agreed)} (${agreed}/${LABELLED.length}), within one tier ${percent(adjacent)}`);
}

measure("cheap signals only", { tiers: DEFAULT_TIERS, references: new ReferenceSet([], DEFAULT_TIERS) });
measure("signals + reference prompts", { tiers: DEFAULT_TIERS, references: new ReferenceSet(DEFAULT_REFERENCES, DEFAULT_TIERS) });
const started = Bun.nanoseconds();
new ReferenceSet(DEFAULT_REFERENCES, DEFAULT_TIERS);
console.log(`embedding the ${DEFAULT_REFERENCES.length} shipped references once: ${((Bun.nanoseconds() - started) / 1_000).toFixed(0)} µs`);
