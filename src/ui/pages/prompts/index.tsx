import { useState } from "preact/hooks";
import { prompts } from "../../api/endpoints";
import type { PromptSummary } from "../../api/types";
import { useFeedback } from "../../components/feedback";
import { PageHeader } from "../../components/layout";
import { Empty, ErrorState, Loading } from "../../components/states";
import { TableHead } from "../../components/table-head";
import { followLink, navigate } from "../../lib/router";
import { useResource } from "../../lib/use-resource";
import { messageOf } from "../../lib/use-save";
import { useCan } from "../../session";
import { PromptEditor } from "./editor";
import { PromptDetailPage } from "./detail";

const PREFIX = "/ui/prompts/";
const pathOf = (name: string) => `${PREFIX}${encodeURIComponent(name)}`;
const labelsText = (labels: Record<string, number>) => Object.entries(labels).map(([label, version]) => `${label} → v${version}`).join(", ");

/** Reads a chosen file and imports it; the toast says what changed. */
function ImportButton({ reload }: { reload(): void }) {
  const { toast } = useFeedback();
  const importFile = async (file: File | undefined) => {
    if (!file) return;
    try {
      const changed = await prompts.importFile(await file.text());
      toast(`Imported: ${changed.created.length} created, ${changed.versioned.length} with a new version, ${changed.unchanged.length} unchanged`);
      reload();
    } catch (error) {
      toast(`Not imported: ${messageOf(error)}`, "error");
    }
  };
  return (
    <label class="button">
      Import
      <input type="file" accept=".yaml,.yml,.json" class="visually-hidden" aria-label="Import prompts from a file" onChange={(event) => void importFile(event.currentTarget.files?.[0])} />
    </label>
  );
}

function PromptTable({ folder, rows }: { folder: string; rows: PromptSummary[] }) {
  return (
    <section aria-label={folder ? `Folder ${folder}` : "No folder"}>
      <h2>{folder || "No folder"}</h2>
      <div class="table-wrap">
        <table aria-label={folder ? `Prompts in ${folder}` : "Prompts without a folder"}>
          <TableHead columns={["Name", "Newest version", "Labels"]} />
          <tbody>
            {rows.map((prompt) => (
              <tr key={prompt.name}>
                <td>
                  <a href={pathOf(prompt.name)} onClick={(event) => followLink(event, pathOf(prompt.name))}>
                    {prompt.name}
                  </a>
                  {prompt.description && <div class="muted small">{prompt.description}</div>}
                </td>
                <td class="number">{prompt.latest_version}</td>
                <td>{labelsText(prompt.labels) || "–"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** Every prompt by folder, with its newest version and labels; import, export, and a new prompt. */
function PromptList() {
  const can = useCan();
  const list = useResource(prompts.list, []);
  const [creating, setCreating] = useState(false);
  const folders = [...new Set((list.data ?? []).map((prompt) => prompt.folder))].toSorted();
  return (
    <>
      <PageHeader title="Prompts" />
      <div class="toolbar">
        {can("Prompts:Edit") && (
          <>
            <button type="button" class="primary" onClick={() => setCreating(true)}>
              New prompt
            </button>
            <ImportButton reload={list.reload} />
          </>
        )}
        <a class="button" href="/api/prompts/export" download="prompts.yaml">
          Export
        </a>
      </div>
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {!list.data && !list.error && <Loading />}
      {list.data?.length === 0 && (
        <Empty title="No prompt yet">
          <p>Keep the messages your applications send out of their code: write a prompt, give it versions, and point production at the one to run.</p>
        </Empty>
      )}
      {folders.map((folder) => (
        <PromptTable key={folder} folder={folder} rows={(list.data ?? []).filter((prompt) => prompt.folder === folder)} />
      ))}
      {creating && <PromptEditor onClose={() => setCreating(false)} onSaved={(name) => navigate(pathOf(name))} />}
    </>
  );
}

/** /ui/prompts: the list; /ui/prompts/{name}: one prompt. */
export function PromptsPage({ path }: { path: string }) {
  const name = path.startsWith(PREFIX) ? decodeURIComponent(path.slice(PREFIX.length)) : "";
  return name ? <PromptDetailPage key={name} name={name} /> : <PromptList />;
}
