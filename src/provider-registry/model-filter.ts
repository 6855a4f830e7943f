import { RE2JS } from "re2js";
import { badRequest } from "../http/errors";

const REGEX_PREFIX = "regex:";

type ModelPattern = { kind: "any" } | { kind: "exact"; name: string } | { kind: "regex"; re: RE2JS };

/** A compiled `models` or `blacklisted_models` list. */
export interface ModelFilter {
  readonly empty: boolean;
  matches(model: string): boolean;
}

function compileEntry(entry: string, param: string): ModelPattern {
  if (entry === "*") return { kind: "any" };
  if (!entry.startsWith(REGEX_PREFIX)) return { kind: "exact", name: entry };
  const source = entry.slice(REGEX_PREFIX.length);
  if (source.trim() === "" || source === "*") throw badRequest(`${param}: '${entry}' is not a usable RE2 pattern`, param);
  try {
    // RE2 semantics (linear time, no backreferences) so a key's pattern cannot stall the hot path.
    return { kind: "regex", re: RE2JS.compile(source, RE2JS.CASE_INSENSITIVE) };
  } catch (error) {
    throw badRequest(`${param}: '${entry}' does not compile as RE2: ${(error as Error).message}`, param);
  }
}

const matchesPattern = (pattern: ModelPattern, model: string) =>
  pattern.kind === "any" || (pattern.kind === "exact" ? pattern.name === model : pattern.re.matches(model));

/** Compiles a list, throwing a 400 that names the bad entry (`field[index]`). */
export function compileModelFilter(entries: readonly string[] | undefined, field: string): ModelFilter {
  const patterns = (entries ?? []).map((entry, index) => compileEntry(entry, `${field}[${index}]`));
  return {
    empty: patterns.length === 0,
    matches: (model) => patterns.some((pattern) => matchesPattern(pattern, model)),
  };
}

/** The exact model names a list spells out (no wildcard, no regex), for model listings. */
export const explicitModels = (entries: readonly string[] | undefined) =>
  (entries ?? []).filter((entry) => entry !== "*" && !entry.startsWith(REGEX_PREFIX));
