import { useState } from "preact/hooks";
import { prompts } from "../../api/endpoints";
import type { PromptVersion } from "../../api/types";
import { Field, SelectField, TextField } from "../../components/fields";
import { Panel } from "../../components/panel";
import { useSave } from "../../lib/use-save";
import { type EditedMessage, editedMessages, variablesIn } from "./template";

const ROLES = ["system", "developer", "user", "assistant"];

function parametersOf(text: string): Record<string, unknown> {
  if (!text.trim()) return {};
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("parameters must be a JSON object");
  return parsed as Record<string, unknown>;
}

function MessageFields({ message, index, onChange, onRemove, error }: { message: EditedMessage; index: number; onChange(message: EditedMessage): void; onRemove?(): void; error?: string }) {
  if (!("content" in message)) return <p class="muted">Message {index + 1}: the messages of prompt {message.include.name}</p>;
  return (
    <fieldset class="check">
      <legend>Message {index + 1}</legend>
      <SelectField label={`Role of message ${index + 1}`} value={message.role} onValue={(role) => onChange({ ...message, role })} options={ROLES} />
      <Field label={`Text of message ${index + 1}`} error={error} hint="{{name}} is a variable.">
        {(ids) => <textarea {...ids} rows={3} value={message.content} onInput={(event) => onChange({ ...message, content: event.currentTarget.value })} />}
      </Field>
      {onRemove && (
        <button type="button" onClick={onRemove} aria-label={`Remove message ${index + 1}`}>
          Remove message
        </button>
      )}
    </fieldset>
  );
}

/** Writes a new prompt (`name` unset) or the next version of one, starting from `from`; the variables show as they are typed. */
export function PromptEditor({ name, from, onClose, onSaved }: { name?: string; from?: PromptVersion; onClose(): void; onSaved(name: string): void }) {
  const [newName, setNewName] = useState("");
  const [folder, setFolder] = useState("");
  const [messages, setMessages] = useState<EditedMessage[]>(() => editedMessages(from));
  const [model, setModel] = useState(from?.model ?? "");
  const [parameters, setParameters] = useState(from && Object.keys(from.parameters).length ? JSON.stringify(from.parameters, null, 2) : "");
  const [commitMessage, setCommitMessage] = useState("");
  const [parametersError, setParametersError] = useState<string>();
  const { save, errorFor } = useSave(() => undefined);
  const variables = variablesIn(messages);
  const declared = (from?.variables ?? []).filter((variable) => variables.includes(variable.name));

  const submit = async (event: Event) => {
    event.preventDefault();
    let parsed: Record<string, unknown>;
    try {
      parsed = parametersOf(parameters);
      setParametersError(undefined);
    } catch (error) {
      setParametersError((error as Error).message);
      return;
    }
    const version = { messages, variables: declared, parameters: parsed, commit_message: commitMessage, ...(model.trim() ? { model: model.trim() } : {}) };
    const target = name ?? newName.trim();
    const saved = await save(() => (name ? prompts.addVersion(name, version) : prompts.create({ ...version, name: target, folder: folder.trim() })), name ? `Version saved for ${name}` : `Prompt ${target} created`);
    if (saved) onSaved(target);
  };
  const change = (index: number, message: EditedMessage) => setMessages(messages.map((current, at) => (at === index ? message : current)));
  return (
    <Panel title={name ? `New version of ${name}` : "New prompt"} onClose={onClose} wide>
      <form onSubmit={submit}>
        {!name && (
          <>
            <TextField label="Name" required value={newName} onValue={setNewName} hint="Lower-case letters, digits, _ . and -." error={errorFor("name")} />
            <TextField label="Folder" value={folder} onValue={setFolder} hint="Where it is listed, / separated." error={errorFor("folder")} />
          </>
        )}
        {messages.map((message, index) => (
          <MessageFields key={index} message={message} index={index} onChange={(next) => change(index, next)} onRemove={messages.length > 1 ? () => setMessages(messages.filter((_, at) => at !== index)) : undefined} error={errorFor(`messages[${index}]`)} />
        ))}
        <button type="button" onClick={() => setMessages([...messages, { role: "user", content: "" }])}>
          Add message
        </button>
        <section aria-label="Variables">
          <h3>Variables</h3>
          {variables.length === 0 ? <p class="muted">None yet: write {"{{name}}"} in a message.</p> : (
            <ul class="plain">
              {variables.map((variable) => (
                <li key={variable}>
                  <code>{variable}</code>
                </li>
              ))}
            </ul>
          )}
        </section>
        <TextField label="Model" value={model} onValue={setModel} placeholder="provider/model" error={errorFor("model")} />
        <Field label="Parameters" hint='JSON, as {"temperature": 0.2, "max_tokens": 300}.' error={parametersError ?? errorFor("parameters")}>
          {(ids) => <textarea {...ids} class="code-input" rows={3} spellcheck={false} value={parameters} onInput={(event) => setParameters(event.currentTarget.value)} />}
        </Field>
        <TextField label="Commit message" value={commitMessage} onValue={setCommitMessage} error={errorFor("commit_message")} />
        <div class="actions">
          <button type="submit" class="primary">
            {name ? "Save version" : "Create prompt"}
          </button>
        </div>
      </form>
    </Panel>
  );
}
