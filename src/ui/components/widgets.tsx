import { useState } from "preact/hooks";
import { formatUntil } from "../lib/format";

/** How much of a limit is used, with when its window resets. */
export function UsageBar({ label, used, max, resetsAt, format = String }: { label: string; used: number; max: number; resetsAt?: string; format?: (value: number) => string }) {
  const share = max > 0 ? Math.min(1, used / max) : 0;
  const level = share >= 0.9 ? "high" : share >= 0.7 ? "medium" : "low";
  return (
    <div class="usage">
      <div class="usage-label">
        <span>{label}</span>
        <span class="muted">
          {format(used)} of {format(max)}
          {resetsAt && ` · resets ${formatUntil(resetsAt)}`}
        </span>
      </div>
      <div class={`usage-bar usage-${level}`} role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={max} aria-valuenow={used}>
        <span style={{ width: `${share * 100}%` }} />
      </div>
    </div>
  );
}

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard) return navigator.clipboard.writeText(text);
  const area = document.createElement("textarea");
  area.value = text;
  document.body.append(area);
  area.select();
  document.execCommand("copy");
  area.remove();
}

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      onClick={async () => {
        await copyText(text);
        setCopied(true);
        setTimeout(() => setCopied(false), 2000);
      }}
    >
      {copied ? "Copied" : label}
    </button>
  );
}

export const StatusBadge = ({ status }: { status: string }) => <span class={`badge badge-${status === "success" ? "ok" : status === "error" || status.endsWith("failed") ? "bad" : "neutral"}`}>{status}</span>;

/** A row's Edit button, named for the row as its Delete button is. */
export const EditButton = ({ name, onEdit }: { name: string; onEdit: () => unknown }) => (
  <button type="button" aria-label={`Edit ${name}`} onClick={() => void onEdit()}>
    Edit
  </button>
);

/** A row's Delete button, named for the row so a screen reader (and a test) can tell the rows apart. */
export const DeleteButton = ({ name, onDelete }: { name: string; onDelete: () => unknown }) => (
  <button type="button" class="danger" aria-label={`Delete ${name}`} onClick={() => void onDelete()}>
    Delete
  </button>
);
