import { useEffect, useRef, useState } from "preact/hooks";
import { answered, api } from "../../api/client";
import { virtualKeys } from "../../api/endpoints";
import { Field, SelectField } from "../../components/fields";
import { PageHeader } from "../../components/layout";
import { modelFactsLine } from "../../lib/model-facts";
import { useResource } from "../../lib/use-resource";
import { useCan } from "../../session";
import { AnswerCard } from "./answer";
import type { CodeTarget } from "./code";
import { ParameterFields, PromptFields } from "./form";
import { chatBody, EMPTY_FORM, type FormErrors, type PlaygroundForm } from "./request";
import { type Answer, runChat } from "./run";
import type { ChatBody } from "./types";

const MOST_MODELS = 3;
/** The variable the code view reads the virtual key from: the page never has its value. */
const KEY_VARIABLE = "GATEWAY_VIRTUAL_KEY";

interface Run {
  body: ChatBody;
  answer: Answer;
}

const modelsFor = (keyId: string) => answered(api.GET("/api/playground/models", { params: { query: { virtual_key_id: keyId } } })).then((answer) => answer.models);

type KnownModel = Awaited<ReturnType<typeof modelsFor>>[number];

/** The models to compare, each typed or picked from what the key may use, with its prices and context window where known. */
function ModelFields({ models, known, setModels }: { models: string[]; known: KnownModel[]; setModels(models: string[]): void }) {
  const factsOf = (id: string) => {
    const model = known.find((entry) => entry.id === id.trim());
    return model && modelFactsLine(model);
  };
  return (
    <div class="model-fields">
      <datalist id="playground-models">
        {known.map((model) => (
          <option key={model.id} value={model.id} label={modelFactsLine(model) || undefined} />
        ))}
      </datalist>
      {models.map((model, index) => (
        <div key={index} class="model-field">
          <Field label={`Model ${index + 1}`} hint={factsOf(model) || undefined}>
            {(ids) => <input {...ids} list="playground-models" placeholder="provider/model" value={model} onInput={(event) => setModels(models.map((current, at) => (at === index ? event.currentTarget.value : current)))} />}
          </Field>
          {models.length > 1 && (
            <button type="button" aria-label={`Remove model ${index + 1}`} onClick={() => setModels(models.filter((_, at) => at !== index))}>
              Remove
            </button>
          )}
        </div>
      ))}
      {models.length < MOST_MODELS && (
        <button type="button" onClick={() => setModels([...models, ""])}>
          Compare with another model
        </button>
      )}
    </div>
  );
}

/** Try models as a chosen virtual key: its access, routing, limits and budget apply, and each run is an ordinary log row. */
export function PlaygroundPage() {
  const can = useCan();
  const keys = useResource(() => (can("VirtualKeys:View") ? virtualKeys.list() : Promise.resolve([])), []);
  const [keyId, setKeyId] = useState<string>();
  const chosenKey = keyId ?? keys.data?.[0]?.id ?? "";
  const known = useResource(() => modelsFor(chosenKey).catch(() => []), [chosenKey]);
  const [models, setModels] = useState<string[]>([""]);
  const [form, setForm] = useState<PlaygroundForm>(EMPTY_FORM);
  const [errors, setErrors] = useState<FormErrors>({});
  const [runs, setRuns] = useState<Run[]>([]);
  const [target, setTarget] = useState<CodeTarget>({ origin: location.origin });
  const running = useRef<AbortController>(undefined);
  useEffect(() => () => running.current?.abort(), []);
  const busy = runs.some((run) => !run.answer.done);
  const change = (patch: Partial<PlaygroundForm>) => setForm((current) => ({ ...current, ...patch }));

  const start = (event: Event) => {
    event.preventDefault();
    const chosen = models.map((model) => model.trim()).filter(Boolean);
    const built = chosen.map((model) => chatBody(form, model));
    const failed = built.find((result) => "errors" in result);
    setErrors(failed && "errors" in failed ? failed.errors : chosen.length === 0 ? { prompt: "Name a model to run." } : {});
    if (failed || chosen.length === 0) return;
    const bodies = built.map((result) => (result as { body: ChatBody }).body);
    running.current?.abort();
    const controller = (running.current = new AbortController());
    setTarget({ origin: location.origin, keyVariable: chosenKey ? KEY_VARIABLE : undefined });
    setRuns(bodies.map((body) => ({ body, answer: { text: "", toolCalls: [], done: false } })));
    bodies.forEach((body, index) => {
      const show = (answer: Answer) => setRuns((current) => current.map((run, at) => (at === index ? { ...run, answer } : run)));
      void runChat(body, chosenKey, controller.signal, show);
    });
  };

  const keyOptions = [...(keys.data ?? []).map((key) => ({ value: key.id, label: key.name })), { value: "", label: "No virtual key" }];
  return (
    <>
      <PageHeader title="Playground" />
      <form class="card playground-form" aria-label="Request" onSubmit={start}>
        <SelectField
          label="Run as virtual key"
          value={chosenKey}
          onValue={setKeyId}
          options={keyOptions}
          hint="The key's allowed models, routing rules, rate limits and budgets apply, and the run is charged to it like any request."
        />
        <ModelFields models={models} known={known.data ?? []} setModels={setModels} />
        <PromptFields form={form} errors={errors} change={change} />
        <ParameterFields form={form} errors={errors} change={change} />
        <div class="actions">
          {busy && (
            <button type="button" onClick={() => running.current?.abort()}>
              Stop
            </button>
          )}
          <button type="submit" class="primary" disabled={busy}>
            Run
          </button>
        </div>
      </form>
      {runs.length > 0 && (
        <div class="answers">
          {runs.map((run, index) => (
            <AnswerCard key={index} body={run.body} answer={run.answer} target={target} />
          ))}
        </div>
      )}
    </>
  );
}
