import { useEffect, useRef, useState } from "preact/hooks";
import { prompts, virtualKeys } from "../../api/endpoints";
import type { PromptDetail, PromptRender, PromptVariable } from "../../api/types";
import { Checkbox, SelectField, TextField } from "../../components/fields";
import { Panel } from "../../components/panel";
import { CopyButton } from "../../components/widgets";
import { formatLatency, formatLoggedCost } from "../../lib/format";
import { useResource } from "../../lib/use-resource";
import { messageOf } from "../../lib/use-save";
import { useCan } from "../../session";
import { type Answer, runChat } from "../playground/run";

/** A variable's value as typed: text for strings, JSON for the other types. */
function valueOf(variable: PromptVariable, text: string): unknown {
  if ((variable.type ?? "string") === "string") return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const sampleOf = (variable: PromptVariable) => (variable.default === undefined ? "" : typeof variable.default === "string" ? variable.default : JSON.stringify(variable.default));

/** The run API with these fields, as curl and as the openai SDK's extra body field. */
function runCode(name: string, fields: Record<string, unknown>): string {
  const origin = location.origin;
  return `curl ${origin}/v1/prompts/${name}/chat/completions \\
  -H "Authorization: Bearer $GATEWAY_VIRTUAL_KEY" \\
  -H 'content-type: application/json' \\
  -d '${JSON.stringify(fields).replaceAll("'", "'\\''")}'

// or, with the openai SDK, on the ordinary route:
const reply = await client.chat.completions.create({
  model: ${JSON.stringify(fields.model ?? "")},
  messages: [],
  // @ts-expect-error the gateway's own field
  prompt: ${JSON.stringify({ name, ...fields, model: undefined, stream: undefined })},
});`;
}

/** Renders the chosen version with sample variables and runs it, streaming, as a chosen virtual key. */
export function RunPanel({ detail, onClose }: { detail: PromptDetail; onClose(): void }) {
  const can = useCan();
  const keys = useResource(() => (can("VirtualKeys:View") ? virtualKeys.list() : Promise.resolve([])), []);
  const [keyId, setKeyId] = useState<string>();
  const chosenKey = keyId ?? keys.data?.[0]?.id ?? "";
  const versions = detail.versions;
  const [choice, setChoice] = useState(String(versions.at(-1)?.version ?? 1));
  const version = versions.find((entry) => String(entry.version) === choice) ?? versions.at(-1)!;
  const [values, setValues] = useState<Record<string, string>>({});
  const [model, setModel] = useState("");
  const [stream, setStream] = useState(true);
  const [rendered, setRendered] = useState<PromptRender | { error: string }>();
  const [answer, setAnswer] = useState<Answer>();
  const [showCode, setShowCode] = useState(false);
  const running = useRef<AbortController>(undefined);
  useEffect(() => () => running.current?.abort(), []);

  const variables = Object.fromEntries(version.variables.map((variable) => [variable.name, valueOf(variable, values[variable.name] ?? sampleOf(variable))]));
  const fields = { version: version.version, variables, ...(model.trim() ? { model: model.trim() } : {}) };
  const name = detail.prompt.name;

  const run = async (event: Event) => {
    event.preventDefault();
    running.current?.abort();
    const controller = (running.current = new AbortController());
    setAnswer(undefined);
    try {
      setRendered(await prompts.render(name, fields));
    } catch (error) {
      setRendered({ error: messageOf(error) });
      return;
    }
    const body = { model: fields.model ?? version.model ?? "", messages: [], prompt: { name, version: version.version, variables }, ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) };
    await runChat(body, chosenKey, controller.signal, setAnswer);
  };

  return (
    <Panel title={`Run ${name}`} onClose={onClose} wide>
      <form aria-label="Run" onSubmit={run}>
        <SelectField label="Run as virtual key" value={chosenKey} onValue={setKeyId} options={[...(keys.data ?? []).map((key) => ({ value: key.id, label: key.name })), { value: "", label: "No virtual key" }]} />
        <SelectField label="Version" value={String(version.version)} onValue={setChoice} options={versions.map((entry) => ({ value: String(entry.version), label: `Version ${entry.version}${entry.labels.length ? ` (${entry.labels.join(", ")})` : ""}` }))} />
        {version.variables.map((variable) => (
          <TextField key={variable.name} label={`Variable ${variable.name}`} value={values[variable.name] ?? sampleOf(variable)} onValue={(value) => setValues({ ...values, [variable.name]: value })} hint={variable.type && variable.type !== "string" ? `${variable.type}, as JSON` : undefined} />
        ))}
        <TextField label="Model" value={model} onValue={setModel} placeholder={version.model ?? "provider/model"} hint="Empty: the version's model." />
        <Checkbox label="Stream" checked={stream} onChecked={setStream} />
        <div class="actions">
          <button type="button" onClick={() => setShowCode(!showCode)}>
            View as code
          </button>
          <button type="submit" class="primary" disabled={answer !== undefined && !answer.done}>
            Run
          </button>
        </div>
      </form>
      {showCode && (
        <section aria-label="The run API as code">
          <pre class="code-block" tabIndex={0}>
            <code>{runCode(name, fields)}</code>
          </pre>
          <CopyButton text={runCode(name, fields)} label="Copy the code" />
        </section>
      )}
      {rendered && "error" in rendered && (
        <p class="field-error" role="alert">
          {rendered.error}
        </p>
      )}
      {rendered && "body" in rendered && (
        <section aria-label="Rendered request">
          <h3>Rendered request</h3>
          <pre class="code-block" tabIndex={0}>
            <code>{JSON.stringify(rendered.body, null, 2)}</code>
          </pre>
        </section>
      )}
      {answer && (
        <section class="card answer" aria-label="Answer" aria-busy={!answer.done}>
          <div class="answer-text" aria-label="Answer text">
            {answer.text}
          </div>
          {answer.error && (
            <p class="field-error" role="alert">
              {answer.error}
            </p>
          )}
          {answer.log && (
            <p class="muted">
              {formatLatency(answer.log.latency)}, {formatLoggedCost(answer.log.cost)}
            </p>
          )}
        </section>
      )}
    </Panel>
  );
}
