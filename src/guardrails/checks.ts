import { badRequest } from "../http/errors";
import { DETECTORS } from "./detectors";
import type { DetectorName } from "../db/schema/types";
import { detectorMatcher, type Matcher, regexMatcher, wordListMatcher } from "./matchers";
import type { CheckAction, GuardrailCheck } from "../db/schema/types";
import { jsonSchemaCheck } from "./verdicts/json-schema";
import { languageCheck } from "./verdicts/language";
import { lengthCheck } from "./verdicts/length";
import { httpCheck, type HttpCheckDeps } from "./verdicts/http-check";
import { modelCheck, type ModelCheckDeps } from "./verdicts/model-check";

/** What a verdict check is given besides the text. */
export interface CheckInput {
  text: string;
  stage: "input" | "output";
  /** The request's body as the client sent it (after earlier redactions). */
  body: Record<string, unknown>;
  requestId: string;
}

/** Whether the text breaks the check's rule; a checker that cannot answer decides by its fail_closed. */
export type VerdictFn = (input: CheckInput) => boolean | Promise<boolean>;

interface CheckBase {
  guardrail: string;
  name: string;
  action: CheckAction;
  input: boolean;
  output: boolean;
}

/** A check that finds spans of text (which `redact` can replace) or one that judges the whole text. */
export type CompiledCheck = CheckBase & ({ kind: "match"; matcher: Matcher } | { kind: "verdict"; judge: VerdictFn; remote: boolean });

export type CheckDeps = ModelCheckDeps & HttpCheckDeps;

function required<K extends keyof GuardrailCheck>(check: GuardrailCheck, field: K, param: string): NonNullable<GuardrailCheck[K]> {
  const value = check[field];
  if (value === undefined) throw badRequest(`${param}.${field} is required for a '${check.type}' check`, `${param}.${field}`);
  return value as NonNullable<GuardrailCheck[K]>;
}

function matcherOf(check: GuardrailCheck, param: string): Matcher | undefined {
  if (check.type in DETECTORS) return detectorMatcher(DETECTORS[check.type as DetectorName]);
  const label = check.label ?? (check.type === "regex" ? "MATCH" : "WORD");
  if (check.type === "regex") return regexMatcher(required(check, "pattern", param), label, check.case_sensitive ?? true, `${param}.pattern`);
  if (check.type === "word_list") return wordListMatcher(required(check, "words", param), label, check.case_sensitive ?? false);
  return undefined;
}

function judgeOf(check: GuardrailCheck, param: string, deps: CheckDeps): VerdictFn {
  switch (check.type) {
    case "json_schema":
      if (check.stage !== "output") throw badRequest(`${param}.stage must be 'output' for a json_schema check`, `${param}.stage`);
      return jsonSchemaCheck(check.schema, `${param}.schema`);
    case "length":
      if (check.max_characters === undefined && check.max_tokens === undefined) throw badRequest(`${param} needs max_characters or max_tokens`, `${param}.max_characters`);
      return lengthCheck(check.max_characters, check.max_tokens);
    case "language":
      if (!check.allowed_languages && !check.denied_languages) throw badRequest(`${param} needs allowed_languages or denied_languages`, `${param}.allowed_languages`);
      return languageCheck(check.allowed_languages, check.denied_languages);
    case "model":
      return modelCheck({ model: required(check, "model", param), endpoint: check.endpoint ?? "chat", prompt: check.prompt, timeoutMs: check.timeout_ms, failClosed: check.fail_closed ?? false }, deps);
    case "http":
      return httpCheck({ url: required(check, "url", param), headers: check.headers ?? {}, allowPrivateNetwork: check.allow_private_network ?? false, timeoutMs: check.timeout_ms, failClosed: check.fail_closed ?? false }, deps);
    default:
      throw badRequest(`${param}.type '${check.type}' is not a check`, `${param}.type`);
  }
}

/** A policy's check, ready to run; throws a 400 naming the field that does not fit its type. */
export function compileCheck(guardrail: string, check: GuardrailCheck, param: string, deps: CheckDeps): CompiledCheck {
  const stage = check.stage ?? "both";
  const base = { guardrail, name: check.name ?? check.type, action: check.action ?? "block", input: stage !== "output", output: stage !== "input" };
  const matcher = matcherOf(check, param);
  if (matcher) return { ...base, kind: "match", matcher };
  if (base.action === "redact") throw badRequest(`${param}.action: a '${check.type}' check judges the whole text and cannot redact; use block or log`, `${param}.action`);
  return { ...base, kind: "verdict", judge: judgeOf(check, param, deps), remote: check.type === "model" || check.type === "http" };
}
