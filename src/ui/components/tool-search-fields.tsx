import type { ComponentChildren } from "preact";
import type { ToolSearchSetting } from "../api/types";
import { listOf } from "../lib/format";
import { Checkbox, TextField } from "./fields";

/** Tool search as the form holds it: the box, and the pinned tools and result count as typed. */
export interface ToolSearchDraft {
  enabled: boolean;
  pinned: string;
  maxResults: string;
}

export const toolSearchDraftOf = (setting: ToolSearchSetting | null | undefined): ToolSearchDraft => ({
  enabled: setting?.enabled ?? false,
  pinned: (setting?.pinned ?? []).join(", "),
  maxResults: setting?.max_results === undefined ? "" : String(setting.max_results),
});

/** The setting to save: null when nothing is set, so an untouched form leaves an unset setting unset. */
export function toolSearchOf(draft: ToolSearchDraft): ToolSearchSetting | null {
  const pinned = listOf(draft.pinned);
  const maxResults = draft.maxResults.trim();
  if (!draft.enabled && pinned.length === 0 && maxResults === "") return null;
  return { enabled: draft.enabled, ...(pinned.length ? { pinned } : {}), ...(maxResults ? { max_results: Number(maxResults) } : {}) };
}

/** Offer `search_tools` and a few pinned tools instead of every MCP tool; `field` is the setting's name in the API, for its errors. */
export function ToolSearchFields({ draft, onDraft, pinnedHint, field, errorFor }: { draft: ToolSearchDraft; onDraft(next: ToolSearchDraft): void; pinnedHint: ComponentChildren; field: string; errorFor(field: string): string | undefined }) {
  return (
    <fieldset>
      <legend>Tool search</legend>
      <Checkbox label="Offer search_tools and the pinned tools instead of every MCP tool" checked={draft.enabled} onChecked={(enabled) => onDraft({ ...draft, enabled })} />
      <div class="grid-2">
        <TextField label="Pinned tools" value={draft.pinned} onValue={(pinned) => onDraft({ ...draft, pinned })} placeholder="none" hint={pinnedHint} error={errorFor(`${field}.pinned`)} />
        <TextField label="Tools one search answers at most" inputMode="numeric" value={draft.maxResults} onValue={(maxResults) => onDraft({ ...draft, maxResults })} placeholder="5" error={errorFor(`${field}.max_results`)} />
      </div>
    </fieldset>
  );
}
