import { type TSchema, Kind, OptionalKind } from "@sinclair/typebox";
import { GatewayConfig } from "./schema";
import { CommandLineFlags, EnvironmentVariables } from "./startup-options";

/** Where `npm run config-reference` writes the reference, from the repository's root. */
export const REFERENCE_PATH = "docs/configuration.md";

interface Row {
  path: string;
  type: string;
  description: string;
}

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

function bounds(schema: TSchema): string {
  const parts: string[] = [];
  if (schema.minimum !== undefined && schema.maximum !== undefined) parts.push(`${schema.minimum}–${schema.maximum}`);
  else if (schema.minimum !== undefined) parts.push(`≥ ${schema.minimum}`);
  else if (schema.exclusiveMinimum !== undefined) parts.push(`> ${schema.exclusiveMinimum}`);
  else if (schema.maximum !== undefined) parts.push(`≤ ${schema.maximum}`);
  if (schema.pattern) parts.push(`matching \`${schema.pattern}\``);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

/** A field's type in a word or two; objects, arrays and maps of objects say so and are listed below. */
function typeOf(schema: TSchema): string {
  switch (schema[Kind]) {
    case "String":
      return `string${bounds(schema)}`;
    case "Integer":
      return `integer${bounds(schema)}`;
    case "Number":
      return `number${bounds(schema)}`;
    case "Boolean":
      return "boolean";
    case "Literal":
      return `\`${JSON.stringify(schema.const)}\``;
    case "Union":
      return (schema.anyOf as TSchema[]).map(typeOf).join(" or ");
    case "Array":
      return `list of ${typeOf(schema.items)}`;
    case "Record":
      return `map of name → ${typeOf(Object.values(schema.patternProperties as Record<string, TSchema>)[0]!)}`;
    case "Object":
      return "object";
    case "Unknown":
      return "any";
    default:
      return String(schema[Kind]).toLowerCase();
  }
}

/** Every field under `schema`, depth first, each with the path a config.json would spell it with. */
function rows(schema: TSchema, path: string): Row[] {
  switch (schema[Kind]) {
    case "Object":
      return Object.entries(schema.properties as Record<string, TSchema>).flatMap(([name, field]) => {
        const fieldPath = path ? `${path}.${name}` : name;
        const required = field[OptionalKind] === undefined && path !== "" ? REQUIRED : "";
        return [{ path: fieldPath, type: `${typeOf(field)}${required}`, description: field.description ?? "" }, ...rows(field, fieldPath)];
      });
    case "Array":
      return rows(schema.items, `${path}[]`);
    case "Union":
      return mergedRows((schema.anyOf as TSchema[]).map((member) => rows(member, path)));
    case "Record":
      return rows(Object.values(schema.patternProperties as Record<string, TSchema>)[0]!, `${path}.<name>`);
    default:
      return [];
  }
}

const REQUIRED = ", required";

/** The fields of a union's members (a log sink of each type) as one list: a field they share once, with each type it may have, required only where every member requires it. */
function mergedRows(members: Row[][]): Row[] {
  const byPath = new Map<string, Row[]>();
  for (const row of members.flat()) byPath.set(row.path, [...(byPath.get(row.path) ?? []), row]);
  return [...byPath.values()].map((same) => {
    const required = same.length === members.length && same.every((row) => row.type.endsWith(REQUIRED));
    const types = [...new Set(same.map((row) => row.type.replace(REQUIRED, "")))].join(" or ");
    return { path: same[0]!.path, type: `${types}${required ? REQUIRED : ""}`, description: same.find((row) => row.description)?.description ?? "" };
  });
}

const table = (header: [string, string, string], entries: Row[]) =>
  [`| ${header.join(" | ")} |`, "|---|---|---|", ...entries.map((row) => `| \`${row.path}\` | ${cell(row.type)} | ${cell(row.description)} |`)].join("\n");

const flat = (schema: TSchema, name: (key: string) => string) =>
  Object.entries(schema.properties as Record<string, TSchema>).map(([key, field]) => ({ path: name(key), type: typeOf(field), description: field.description ?? "" }));

/** The configuration reference as Markdown, from the schemas alone. */
export function renderConfigurationReference(): string {
  const sections = Object.entries(GatewayConfig.properties as Record<string, TSchema>).map(([name, field]) => {
    const nested = rows(field, name);
    return [`### \`${name}\``, "", field.description ?? "", "", nested.length ? table(["field", "type", "meaning"], nested) : `Type: ${typeOf(field)}.`].join("\n");
  });
  return [
    "# Configuration reference",
    "",
    "<!-- Generated from the TypeBox schemas (src/config/schema.ts, src/config/startup-options.ts) by `npm run config-reference`; edit the schemas, not this file. -->",
    "",
    "The gateway reads, in this order of precedence: command-line flags, environment variables, then config.json. config.json seeds the database on first start; afterwards what the API writes lives in the database and survives restarts. Any string value written `env.NAME` is read from the environment when used and never stored resolved.",
    "",
    "## Command-line flags",
    "",
    table(["flag", "type", "meaning"], flat(CommandLineFlags, (key) => `--${key}`)),
    "",
    "## Environment variables",
    "",
    table(["variable", "type", "meaning"], flat(EnvironmentVariables, (key) => key)),
    "",
    "## config.json",
    "",
    "Every section is optional; an unknown field is refused at start (exit code 2, naming it).",
    "",
    sections.join("\n\n"),
    "",
  ].join("\n");
}

if (import.meta.main) {
  await Bun.write(REFERENCE_PATH, renderConfigurationReference());
  console.log(`wrote ${REFERENCE_PATH}`);
}
