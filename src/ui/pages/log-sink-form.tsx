import { useState } from "preact/hooks";
import { logSinks } from "../api/endpoints";
import type { LogSinkChange, LogSinkStatus } from "../api/types";
import { Checkbox, SelectField, TextField } from "../components/fields";
import { Panel } from "../components/panel";
import { useSave } from "../lib/use-save";

const fieldList = (text: string) => {
  const names = text.split(",").map((name) => name.trim()).filter(Boolean);
  return names.length > 0 ? names : undefined;
};

/** The settings the form edits, as the API takes them; a blank secret on an edit keeps the stored one. */
function settingsOf(form: { type: string; url: string; secret: string; path: string; filter: string; fields: string; includeContent: boolean; privateNetwork: boolean }): LogSinkChange {
  const common = { filter: form.filter.trim() || undefined, fields: fieldList(form.fields), include_content: form.includeContent };
  if (form.type === "file") return { type: "file", path: form.path.trim(), ...common };
  return { type: "http", url: form.url.trim(), secret: form.secret.trim() || undefined, allow_private_network: form.privateNetwork, ...common };
}

/** Adds a log sink, or edits one added through the API (its secret is never shown: left blank, it is kept). */
export function LogSinkForm({ editing, onClose, reload }: { editing?: LogSinkStatus; onClose(): void; reload(): void }) {
  const [name, setName] = useState(editing?.name ?? "");
  const [type, setType] = useState<string>(editing?.type ?? "http");
  const [url, setUrl] = useState(editing?.type === "http" ? editing.destination : "");
  const [secret, setSecret] = useState("");
  const [path, setPath] = useState(editing?.type === "file" ? editing.destination : "");
  const [filter, setFilter] = useState(editing?.filter ?? "");
  const [fields, setFields] = useState(editing?.fields?.join(", ") ?? "");
  const [includeContent, setIncludeContent] = useState(editing?.include_content ?? false);
  const [privateNetwork, setPrivateNetwork] = useState(editing?.allow_private_network ?? false);
  const { save, errorFor } = useSave(reload);
  const submit = async (event: Event) => {
    event.preventDefault();
    const settings = settingsOf({ type, url, secret, path, filter, fields, includeContent, privateNetwork });
    const saved = editing
      ? await save(() => logSinks.update(editing.name, settings), `Log sink ${editing.name} saved`)
      : await save(() => logSinks.create({ ...settings, name: name.trim() } as Parameters<typeof logSinks.create>[0]), `Log sink ${name.trim()} added`);
    if (saved) onClose();
  };
  return (
    <Panel title={editing ? `Edit log sink ${editing.name}` : "Add a log sink"} onClose={onClose}>
      <form onSubmit={submit}>
        {!editing && <TextField label="Name" required value={name} onValue={setName} error={errorFor("name")} hint="Lower-case letters, digits, - and _." />}
        <SelectField label="Type" value={type} onValue={setType} options={[{ value: "http", label: "HTTP receiver" }, { value: "file", label: "JSON lines file" }]} />
        {type === "http" && (
          <>
            <TextField label="URL" type="url" required value={url} onValue={setUrl} error={errorFor("url")} hint={editing ? "Its credentials and query are not shown: type them again if it has any." : "Batches are POSTed here, gzip JSON lines."} />
            <TextField
              label="Signing secret"
              type="password"
              required={!editing || editing.type !== "http"}
              value={secret}
              onValue={setSecret}
              error={errorFor("secret")}
              hint={editing?.type === "http" ? "Leave blank to keep the current one." : "whsec_ and base64: every batch is signed with it (Standard Webhooks)."}
            />
            <Checkbox label="Allow private networks and plain http" checked={privateNetwork} onChecked={setPrivateNetwork} />
          </>
        )}
        {type === "file" && <TextField label="File path" required value={path} onValue={setPath} error={errorFor("path")} hint="Rows are appended as JSON lines and rotated by size." />}
        <TextField label="Filter" value={filter} onValue={setFilter} error={errorFor("filter")} hint='A CEL expression over the row, e.g. status == "error". Blank sends every row.' />
        <TextField label="Fields" value={fields} onValue={setFields} error={errorFor("fields")} hint="Comma-separated; blank sends every field." />
        <Checkbox label="Include request and response content" checked={includeContent} onChecked={setIncludeContent} />
        <div class="actions">
          <button type="submit" class="primary">
            {editing ? "Save log sink" : "Add log sink"}
          </button>
        </div>
      </form>
    </Panel>
  );
}
