/**
 * What the input's pattern checks cost a request (src/guardrails/input-scan.ts): every built-in
 * pattern check on a chat body of ~4 KB in 8 messages, read as text fields only (each string on
 * its own) beside every string with matches across strings and normalisation. In-process; prints
 * µs a request and the characters scanned a request (a count the machine's load does not change).
 */
import { rewriteText } from "../src/guardrails/body-text";
import { type CheckDeps, compileCheck } from "../src/guardrails/checks";
import { DETECTORS } from "../src/guardrails/detectors";
import { rewriteInput } from "../src/guardrails/input-scan";
import { type AppliedChecks, type MatchCheck, RequestRun } from "../src/guardrails/request-run";
import type { GuardrailCheck } from "../src/db/schema/types";

const ROUNDS = 5_000;
const checks = Object.keys(DETECTORS).map((type) => compileCheck("bench", { type, action: "block" } as GuardrailCheck, "checks[0]", {} as CheckDeps) as MatchCheck);
const applied: AppliedChecks = { restoreRedacted: false, matches: { input: checks, output: [] }, verdicts: { input: [], output: [] } };

const paragraph = "The quarterly report covers revenue, churn and the roadmap for the next two releases; nothing in it is secret. ";
const body = {
  model: "openai/gpt-4o-mini",
  user: "user-1234",
  messages: Array.from({ length: 8 }, (_, index) => ({ role: index % 2 ? "assistant" : "user", content: paragraph.repeat(4) })),
};

function counted(run: RequestRun): { run: RequestRun; scanned: () => number } {
  let characters = 0;
  const find = run.find.bind(run);
  run.find = (text, stage) => {
    characters += text.length;
    return find(text, stage);
  };
  return { run, scanned: () => characters };
}

function measure(label: string, scan: (run: RequestRun) => unknown) {
  const probe = counted(new RequestRun(applied));
  scan(probe.run);
  const started = Bun.nanoseconds();
  for (let round = 0; round < ROUNDS; round++) scan(new RequestRun(applied));
  const µs = (Bun.nanoseconds() - started) / 1000 / ROUNDS;
  console.log(`${label}: ${µs.toFixed(1)} µs/request, ${probe.scanned()} characters scanned (body ${JSON.stringify(body).length} bytes, ${checks.length} checks)`);
}

measure("text fields, each string on its own", (run) => rewriteText(body, "input", (text) => run.rewrite(text, "input")));
measure("every string, across strings, normalised", (run) => rewriteInput(body, run));
