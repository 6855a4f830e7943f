import { useState } from "preact/hooks";
import { prompts } from "../../api/endpoints";
import type { PromptDetail, PromptVersion } from "../../api/types";
import { SelectField, TextField } from "../../components/fields";
import { PageHeader } from "../../components/layout";
import { ErrorState, Loading } from "../../components/states";
import { TableHead } from "../../components/table-head";
import { formatCost, formatCount, formatLatency, formatTime } from "../../lib/format";
import { lineDiff } from "../../lib/line-diff";
import { followLink } from "../../lib/router";
import { useResource } from "../../lib/use-resource";
import { useSave } from "../../lib/use-save";
import { useCan } from "../../session";
import { PromptEditor } from "./editor";
import { RunPanel } from "./run-panel";
import { versionText } from "./template";

const versionOptions = (versions: readonly PromptVersion[]) => versions.map((version) => ({ value: String(version.version), label: `Version ${version.version}` }));

/** Two versions side by side as one line diff: what the newer one removed and added. */
function VersionDiff({ versions }: { versions: PromptVersion[] }) {
  const [from, setFrom] = useState(String(versions.at(-2)?.version ?? versions[0]!.version));
  const [to, setTo] = useState(String(versions.at(-1)!.version));
  const text = (number: string) => versionText(versions.find((version) => String(version.version) === number) ?? versions.at(-1)!);
  const lines = lineDiff(text(from), text(to));
  return (
    <section class="card" aria-label="Compare versions">
      <h2>Compare versions</h2>
      <div class="filter-row">
        <SelectField label="From version" value={from} onValue={setFrom} options={versionOptions(versions)} />
        <SelectField label="To version" value={to} onValue={setTo} options={versionOptions(versions)} />
      </div>
      <pre class="code-block diff" aria-label={`Diff from version ${from} to version ${to}`} tabIndex={0}>
        {lines.map((line, index) => (
          <div key={index} class={`diff-${line.kind}`}>
            {line.kind === "added" ? <ins>+ {line.text}</ins> : line.kind === "removed" ? <del>- {line.text}</del> : `  ${line.text}`}
          </div>
        ))}
      </pre>
    </section>
  );
}

/** Points a label at a version: promoting a new one, or rolling back to an earlier one. */
function LabelForm({ detail, reload }: { detail: PromptDetail; reload(): void }) {
  const [label, setLabel] = useState("production");
  const [version, setVersion] = useState(String(detail.prompt.latest_version));
  const { save, errorFor } = useSave(reload);
  const current = detail.prompt.labels[label.trim()];
  const move = (event: Event) => {
    event.preventDefault();
    void save(() => prompts.moveLabel(detail.prompt.name, label.trim(), Number(version)), `${label.trim()} now points at version ${version}`);
  };
  return (
    <form class="card" aria-label="Move a label" onSubmit={move}>
      <h2>Labels</h2>
      <ul class="plain" aria-label="Labels">
        {Object.entries(detail.prompt.labels).map(([name, number]) => (
          <li key={name}>
            <strong>{name}</strong> → version {number}
          </li>
        ))}
      </ul>
      <TextField label="Label" value={label} onValue={setLabel} error={errorFor("label")} hint={current ? `Now at version ${current}.` : "A new label."} />
      <SelectField label="Point it at" value={version} onValue={setVersion} options={versionOptions(detail.versions)} error={errorFor("version")} />
      <div class="actions">
        <button type="submit" class="primary">
          {current !== undefined && Number(version) < current ? "Roll back" : "Promote"}
        </button>
      </div>
    </form>
  );
}

/** Each version's runs from the logs: requests, errors, tokens, cost and latency, and a link to its log rows. */
function VersionUsage({ name }: { name: string }) {
  const usage = useResource(() => prompts.usage(name), [name]);
  if (!usage.data?.length) return null;
  const logsOf = (version: number) => `/ui/logs?metadata_prompt=${encodeURIComponent(name)}&metadata_prompt_version=${version}`;
  return (
    <section class="card" aria-label="Runs by version">
      <h2>Runs by version</h2>
      <table aria-label="Runs by version">
        <TableHead columns={["Version", "Requests", "Error rate", "Tokens", "Cost", "Average latency"]} />
        <tbody>
          {usage.data.map((row) => (
            <tr key={row.version}>
              <td>
                <a href={logsOf(row.version)} onClick={(event) => followLink(event, logsOf(row.version))}>
                  Version {row.version}
                </a>
              </td>
              <td class="number">{formatCount(row.requests)}</td>
              <td class="number">{row.error_rate.toFixed(1)} %</td>
              <td class="number">{formatCount(row.total_tokens)}</td>
              <td class="number">{formatCost(row.total_cost)}</td>
              <td class="number">{formatLatency(row.average_latency_ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** One prompt: its versions, labels, a diff of two versions, a new version, a run, and its runs by version. */
export function PromptDetailPage({ name }: { name: string }) {
  const can = useCan();
  const detail = useResource(() => prompts.get(name), [name]);
  const [showing, setShowing] = useState<"edit" | "run">();
  if (detail.error) return <ErrorState error={detail.error} retry={detail.reload} />;
  if (!detail.data) return <Loading />;
  const { prompt, versions } = detail.data;
  return (
    <>
      <PageHeader title={`Prompt ${prompt.name}`}>
        <a href="/ui/prompts" onClick={(event) => followLink(event, "/ui/prompts")}>
          All prompts
        </a>
      </PageHeader>
      <div class="toolbar">
        {can("Prompts:Edit") && (
          <button type="button" class="primary" onClick={() => setShowing("edit")}>
            New version
          </button>
        )}
        {/* A run goes through the playground's route, as a chosen virtual key. */}
        {can("Playground:Create") && (
          <button type="button" onClick={() => setShowing("run")}>
            Run
          </button>
        )}
      </div>
      <div class="table-wrap">
        <table aria-label="Versions">
          <TableHead columns={["Version", "Commit message", "Author", "Labels", "Written"]} />
          <tbody>
            {versions.toReversed().map((version) => (
              <tr key={version.version}>
                <td class="number">{version.version}</td>
                <td>{version.commit_message || "–"}</td>
                <td>{version.author}</td>
                <td>{version.labels.join(", ") || "–"}</td>
                <td>{formatTime(version.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {can("Prompts:Deploy") && <LabelForm detail={detail.data} reload={detail.reload} />}
      {versions.length > 1 && <VersionDiff versions={versions} />}
      {can("Logs:View") && <VersionUsage name={name} />}
      {showing === "edit" && (
        <PromptEditor
          name={name}
          from={versions.at(-1)}
          onClose={() => setShowing(undefined)}
          onSaved={() => {
            setShowing(undefined);
            detail.reload();
          }}
        />
      )}
      {showing === "run" && <RunPanel detail={detail.data} onClose={() => setShowing(undefined)} />}
    </>
  );
}
