/** One row of a client's compatibility table in docs/clients.md. */
export interface CompatibilityRow {
  /** What the client is told to use (`--model`). */
  model: string;
  /** Environment the row sets (`NAME=value` in its options cell). */
  env: Record<string, string>;
  /** Command-line options the row adds (`--effort low` in its options cell). */
  args: string[];
  /** The provider the gateway sends it to. */
  provider: string;
  /** How the provider receives thinking (`reasoning_effort: high`), or `none`. */
  thinking: string;
  /** What the row promises: `works`. */
  outcome: string;
}

const codes = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

/**
 * The rows of the table under `## <section>` whose header starts with `--model`: model, options,
 * provider (format), thinking as received, outcome. The doc is the matrix the test runs, so the
 * table cannot promise what no test checked.
 */
export function compatibilityRows(markdown: string, section: string): CompatibilityRow[] {
  const start = markdown.indexOf(`\n## ${section}\n`);
  if (start < 0) throw new Error(`docs/clients.md has no section '## ${section}'`);
  const end = markdown.indexOf("\n## ", start + 1);
  const lines = markdown.slice(start, end < 0 ? undefined : end).split("\n");
  const header = lines.findIndex((line) => line.startsWith("| `--model` |"));
  if (header < 0) throw new Error(`'## ${section}' has no table whose header starts with \`--model\``);
  const rows = lines.slice(header + 2);
  const tableEnd = rows.findIndex((line) => !line.startsWith("|"));
  return (tableEnd < 0 ? rows : rows.slice(0, tableEnd)).map((line) => {
    const [model, options, provider, thinking, outcome] = line.split("|").slice(1, -1).map((cell) => cell.trim());
    const settings = codes(options!);
    return {
      model: codes(model!)[0]!,
      env: Object.fromEntries(settings.filter((code) => /^[A-Z_]+=/.test(code)).map((code) => code.split("=", 2) as [string, string])),
      args: settings.filter((code) => code.startsWith("--")).flatMap((code) => code.split(" ")),
      provider: codes(provider!)[0]!,
      thinking: codes(thinking!)[0] ?? "none",
      outcome: outcome!,
    };
  });
}
