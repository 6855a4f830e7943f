import type { TransitionView } from "./actor-records";

export interface CountRow {
  kind: string;
  state: string;
  status: string;
  count: number;
}

/** Columns padded to their widest cell. */
function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  ")).join("\n");
}

export function countsTable(counts: CountRow[]): string {
  if (counts.length === 0) return "no actors recorded";
  return table([["KIND", "STATE", "STATUS", "COUNT"], ...counts.map((row) => [row.kind, row.state, row.status, String(row.count)])]);
}

export interface TimelineActor {
  kind: string;
  id: string;
  state_path: string;
  status: string;
  node: string;
  next_timer_at: string | null;
  transitions: TransitionView[];
}

/** One actor's life, a line per transition: when, how long after the one before, from, event, to, node. */
export function timeline(actor: TimelineActor): string {
  const head = `${actor.kind} ${actor.id}: ${actor.status} in ${actor.state_path} (node ${actor.node})${actor.next_timer_at ? `, next timer at ${actor.next_timer_at}` : ""}`;
  if (actor.transitions.length === 0) return `${head}\nno transitions recorded`;
  const start = Date.parse(actor.transitions[0]!.at);
  const rows = actor.transitions.map((transition) => [
    transition.at,
    `+${((Date.parse(transition.at) - start) / 1000).toFixed(3)}s`,
    `${transition.from_path ?? "(start)"} -> ${transition.to_path}`,
    transition.event,
    transition.node,
  ]);
  return `${head}\n${table([["AT", "SINCE START", "TRANSITION", "EVENT", "NODE"], ...rows])}`;
}
