import { Checkbox, Field, TextField } from "../../components/fields";
import type { FormErrors, PlaygroundForm } from "./request";

const EXAMPLE_TOOL = [
  {
    name: "get_weather",
    description: "The weather now in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
];

const readAsDataUrl = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });

interface FormProps {
  form: PlaygroundForm;
  errors: FormErrors;
  change(patch: Partial<PlaygroundForm>): void;
}

/** The images sent with the prompt, each as a data URL content part. */
function Images({ form, change }: FormProps) {
  const attach = async (files: FileList | null) => {
    const urls = await Promise.all([...(files ?? [])].map(readAsDataUrl));
    change({ images: [...form.images, ...urls] });
  };
  return (
    <Field label="Images" hint="Sent with the prompt as image content parts (data URLs); the model must accept images.">
      {(ids) => (
        <div>
          <input {...ids} type="file" accept="image/*" multiple onChange={(event) => {
              const input = event.currentTarget;
              void attach(input.files).then(() => (input.value = ""));
            }} />
          {form.images.length > 0 && (
            <ul class="image-list">
              {form.images.map((url, index) => (
                <li key={url}>
                  <img src={url} alt={`Image ${index + 1}`} />
                  <button type="button" aria-label={`Remove image ${index + 1}`} onClick={() => change({ images: form.images.filter((_, at) => at !== index) })}>
                    Remove
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </Field>
  );
}

export function PromptFields(props: FormProps) {
  const { form, errors, change } = props;
  return (
    <>
      <Field label="System prompt">{(ids) => <textarea {...ids} rows={2} value={form.system} onInput={(event) => change({ system: event.currentTarget.value })} />}</Field>
      <Field label="Prompt" error={errors.prompt}>
        {(ids) => <textarea {...ids} rows={4} value={form.prompt} onInput={(event) => change({ prompt: event.currentTarget.value })} />}
      </Field>
      <Images {...props} />
    </>
  );
}

export function ParameterFields({ form, errors, change }: FormProps) {
  return (
    <>
      <div class="grid-3">
        <TextField label="Temperature" inputMode="decimal" placeholder="the model's default" value={form.temperature} onValue={(temperature) => change({ temperature })} error={errors.temperature} />
        <TextField label="Max tokens" inputMode="numeric" placeholder="the model's default" value={form.maxTokens} onValue={(maxTokens) => change({ maxTokens })} error={errors.maxTokens} />
        <Checkbox label="Stream the answer" checked={form.stream} onChecked={(stream) => change({ stream })} />
      </div>
      <Field
        label="Tools"
        error={errors.tools}
        hint={
          <>
            A JSON array of tools, each a name, a description and its parameters as a JSON schema.{" "}
            <button type="button" class="link" onClick={() => change({ tools: JSON.stringify(EXAMPLE_TOOL, null, 2) })}>
              Insert an example
            </button>
          </>
        }
      >
        {(ids) => <textarea {...ids} class="code-input" rows={form.tools ? 8 : 2} spellcheck={false} value={form.tools} onInput={(event) => change({ tools: event.currentTarget.value })} />}
      </Field>
    </>
  );
}
