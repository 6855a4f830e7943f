import { type Static, Type as t } from "@sinclair/typebox";
import { Timestamp } from "../http/replies";
import { PromptLabel as Label, PromptName as Name, PromptVersionNumber as VersionNumber } from "../inference/mounts/prompt-reference";

const VariableName = t.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]*$" });

/** A message of a template: any role, its text (or its parts' text) a Mustache template. */
const TemplateMessage = t.Object(
  { role: t.String({ minLength: 1 }), content: t.Union([t.String(), t.Array(t.Record(t.String(), t.Unknown()))]) },
  { additionalProperties: true, description: "A chat message; `{{name}}` in its text is a variable." },
);
/** Another prompt's messages, at a label or version, in this one's place. */
const IncludedMessages = t.Object(
  { include: t.Object({ name: Name, label: t.Optional(Label), version: t.Optional(VersionNumber) }) },
  { description: "The messages of another prompt, by name and label (default `production`, else the newest) or version." },
);
export const PromptMessage = t.Union([TemplateMessage, IncludedMessages]);

export const VariableType = t.Union([t.Literal("string"), t.Literal("number"), t.Literal("boolean"), t.Literal("object"), t.Literal("array")]);
export const PromptVariable = t.Object({
  name: VariableName,
  type: t.Optional(VariableType),
  required: t.Optional(t.Boolean({ description: "Default true unless a default is given." })),
  default: t.Optional(t.Unknown()),
  description: t.Optional(t.String()),
});
export type PromptVariable = Static<typeof PromptVariable>;

const versionFields = {
  messages: t.Array(PromptMessage, { minItems: 1 }),
  variables: t.Optional(t.Array(PromptVariable, { description: "Declared variables; ones the messages use but do not declare are required strings." })),
  model: t.Optional(t.String({ minLength: 1, description: "`provider/model`; a run may name another." })),
  parameters: t.Optional(t.Record(t.String(), t.Unknown(), { description: "Chat parameters sent with the messages: temperature, max_tokens, tools, response_format, ..." })),
  commit_message: t.Optional(t.String({ maxLength: 1000 })),
};

export const PromptVersionInput = t.Object(versionFields);
export type PromptVersionInput = Static<typeof PromptVersionInput>;

export const PromptCreateInput = t.Object({
  name: Name,
  folder: t.Optional(t.String({ maxLength: 256, description: "Where the prompt is listed, `/`-separated." })),
  description: t.Optional(t.String({ maxLength: 2000 })),
  ...versionFields,
});
export type PromptCreateInput = Static<typeof PromptCreateInput>;

export const LabelMove = t.Object({ version: VersionNumber });
export const LabelName = Label;

/** What a run adds to the chat parameters: which version, its variables, extra turns. */
export const PromptRunFields = t.Object(
  {
    variables: t.Optional(t.Record(t.String(), t.Unknown())),
    label: t.Optional(Label),
    version: t.Optional(VersionNumber),
    messages: t.Optional(t.Array(t.Record(t.String(), t.Unknown()), { description: "Turns sent after the prompt's own messages." })),
    model: t.Optional(t.String({ minLength: 1 })),
  },
  { additionalProperties: true, description: "Any other chat parameter overrides the version's." },
);
export type PromptRunFields = Static<typeof PromptRunFields>;

export const PromptTemplate = t.Object({
  messages: t.Array(t.Record(t.String(), t.Unknown())),
  variables: t.Array(PromptVariable),
  model: t.Optional(t.String()),
  parameters: t.Record(t.String(), t.Unknown()),
});

export const PromptVersionView = t.Object({
  prompt: t.String(),
  version: t.Integer(),
  ...PromptTemplate.properties,
  commit_message: t.String(),
  author: t.String(),
  labels: t.Array(t.String()),
  created_at: Timestamp,
});
export const PromptView = t.Object({
  name: t.String(),
  folder: t.String(),
  description: t.String(),
  latest_version: t.Integer(),
  labels: t.Record(t.String(), t.Integer(), { description: "Each label and the version it points at." }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export const PromptList = t.Object({ prompts: t.Array(PromptView) });
export const PromptDetail = t.Object({ prompt: PromptView, versions: t.Array(PromptVersionView) });
export const PromptVersionReply = t.Object({ version: PromptVersionView });
export const PromptRender = t.Object({
  body: t.Object({ model: t.String(), messages: t.Array(t.Record(t.String(), t.Unknown())) }, { additionalProperties: true, description: "The chat completion body a run sends." }),
  metadata: t.Record(t.String(), t.String(), { description: "What its log row records: prompt, prompt_version, prompt_label." }),
});
export const LabelReply = t.Object({ prompt: t.String(), label: t.String(), version: t.Integer(), moved_by: t.String(), moved_at: Timestamp });
