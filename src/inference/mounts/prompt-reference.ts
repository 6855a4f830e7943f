/** The `prompt` field's shape, as the routes that take it validate and document it (src/prompts renders it). */
import { type TSchema, Type as t } from "@sinclair/typebox";
import { INT32_MAX } from "../../http/integers";

export const PromptName = t.String({ minLength: 1, maxLength: 128, pattern: "^[a-z0-9][a-z0-9_.-]*$", description: "Lower-case letters, digits, `_`, `.` and `-`." });
export const PromptLabel = t.String({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9][a-z0-9_.-]*$", description: "`production`, `staging` or any name; `latest` always means the newest version." });
/** A version number; a prompt never has 2^31 versions, and the bound keeps every number a column reads back. */
export const PromptVersionNumber = t.Integer({ minimum: 1, maximum: INT32_MAX });

/** The `prompt` field of a chat, responses or messages body: which prompt, which version, its variables. */
export const PromptReference = t.Object(
  {
    name: PromptName,
    label: t.Optional(PromptLabel),
    version: t.Optional(PromptVersionNumber),
    variables: t.Optional(t.Record(t.String(), t.Unknown(), { description: "The values of the version's variables." })),
  },
  {
    additionalProperties: false,
    description:
      "A stored prompt, rendered into the request before it goes on: its messages first, then the body's; the body's other fields override the version's parameters. Neither `label` nor `version`: the newest version. Never sent to the provider.",
  },
);

/**
 * A field a `prompt` can give instead of the body (the model, the messages): optional in the
 * schema, and required of a body that names no prompt (`requireUnprompted`).
 */
export const unlessPrompted = <T extends TSchema>(schema: T) =>
  t.Optional({ ...schema, description: [schema.description, "Required unless `prompt` gives it."].filter(Boolean).join(" ") } as T);
