import { type Query, queryString } from "../api/client";

const FORMATS = [
  { format: "csv", label: "Export CSV" },
  { format: "jsonl", label: "Export JSON lines" },
] as const;

/**
 * Download links for every log matching the page's filters (GET /api/logs/export). The file is
 * always newest first, so the page's sorting is left out; the session cookie goes with the link.
 */
export function LogExportLinks({ query }: { query: Query }) {
  const { sort_by: _sortBy, order: _order, ...filters } = query;
  return (
    <>
      {FORMATS.map(({ format, label }) => (
        <a key={format} class="button" href={`/api/logs/export${queryString({ ...filters, format })}`} download>
          {label}
        </a>
      ))}
    </>
  );
}
