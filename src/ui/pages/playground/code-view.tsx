import { useState } from "preact/hooks";
import { Panel } from "../../components/panel";
import { CopyButton } from "../../components/widgets";
import { asAnthropic, asCurl, asOpenAI, type CodeTarget } from "./code";
import type { ChatBody } from "./types";

const LANGUAGES = [
  { name: "curl", write: asCurl, note: "Exactly the request the playground sent." },
  { name: "OpenAI SDK", write: asOpenAI, note: "Exactly the request the playground sent, with the openai package (TypeScript)." },
  { name: "Anthropic SDK", write: asAnthropic, note: "The same request in Anthropic's Messages format, through the gateway's /anthropic mount (@anthropic-ai/sdk, TypeScript)." },
] as const;

/** The run's request as code to paste: the virtual key's value is read from the environment, never shown. */
export function CodeView({ body, target, onClose }: { body: ChatBody; target: CodeTarget; onClose(): void }) {
  const [language, setLanguage] = useState<(typeof LANGUAGES)[number]>(LANGUAGES[0]);
  const code = language.write(body, target);
  return (
    <Panel title={`${body.model} as code`} onClose={onClose} wide>
      <div class="segmented" role="group" aria-label="Language">
        {LANGUAGES.map((entry) => (
          <button key={entry.name} type="button" aria-pressed={entry === language} onClick={() => setLanguage(entry)}>
            {entry.name}
          </button>
        ))}
      </div>
      <p class="muted">
        {language.note}
        {target.keyVariable && ` Put the virtual key's value in ${target.keyVariable} first.`}
      </p>
      <pre class="code-block" aria-label={`${language.name} code`} tabIndex={0}>
        <code>{code}</code>
      </pre>
      <div class="actions">
        <CopyButton text={code} label="Copy the code" />
      </div>
    </Panel>
  );
}
