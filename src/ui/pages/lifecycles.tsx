import { useEffect, useState } from "preact/hooks";
import { actors } from "../api/endpoints";
import type { Machine, MachineState } from "../api/types";
import { SelectField, TextField } from "../components/fields";
import { PageHeader } from "../components/layout";
import { ErrorState, Loading } from "../components/states";
import { readableEvent } from "../lib/event-names";
import { formatTime } from "../lib/format";
import { useResource } from "../lib/use-resource";

interface LaidOut {
  nodes: Array<{ path: string; label: string; x: number; y: number; width: number; height: number; compound: boolean; final: boolean }>;
  edges: Array<{ id: string; from: string; to: string; label: string; points: Array<{ x: number; y: number }>; labelAt?: { x: number; y: number } }>;
  width: number;
  height: number;
}

interface ElkNode {
  id: string;
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  labels?: Array<{ text: string; width?: number; height?: number; x?: number; y?: number }>;
  children?: ElkNode[];
  edges?: Array<{ id: string; sources: string[]; targets: string[]; labels?: Array<{ text: string; width: number; height: number; x?: number; y?: number }>; sections?: Array<{ startPoint: { x: number; y: number }; endPoint: { x: number; y: number }; bendPoints?: Array<{ x: number; y: number }> }> }>;
  layoutOptions?: Record<string, string>;
}

/** A chart wider than its card shrinks to fit it, down to this width; below, the card scrolls. */
const NARROWEST_CHART_PX = 900;

const pathOf = (machine: Machine, state: MachineState) => state.id.slice(machine.root.id.length + 1);
/** Short edge labels: xstate's generated event names say only which invoked actor finished or failed. */
function eventLabel(event: string, trigger: string): string {
  if (trigger === "delayed") return "after delay";
  if (trigger === "eventless") return "always";
  if (event.startsWith("xstate.done.actor.")) return "done";
  if (event.startsWith("xstate.error.actor.")) return "error";
  return event.replace(/^xstate\./, "");
}

/** The machine as an ELK graph: states as (nested) boxes, transitions as labelled edges. */
function graphOf(machine: Machine): ElkNode {
  const edges: NonNullable<ElkNode["edges"]> = [];
  const nodeOf = (state: MachineState): ElkNode => {
    const children = Object.values(state.states).map(nodeOf);
    for (const [index, transition] of state.transitions.entries()) {
      for (const target of transition.targets) {
        const label = eventLabel(transition.event, transition.trigger);
        edges.push({ id: `${state.id}#${index}>${target}`, sources: [state.id], targets: [target], labels: [{ text: label, width: label.length * 6.2, height: 14 }] });
      }
    }
    const label = state.key;
    return children.length
      ? { id: state.id, labels: [{ text: label, width: label.length * 7, height: 16 }], children, layoutOptions: { "elk.padding": "[top=28,left=12,bottom=12,right=12]" } }
      : { id: state.id, width: Math.max(90, label.length * 7.5 + 40), height: 44, labels: [{ text: label }] };
  };
  const root = nodeOf(machine.root);
  // All edges sit at the root and ELK routes them across the hierarchy (INCLUDE_CHILDREN); by default it
  // then gives an edge's points relative to the box that contains both its ends, so an edge inside
  // `completed` would be drawn off by that box's position. ROOT: every point in the chart's own coordinates.
  const options = { "elk.algorithm": "layered", "elk.direction": "RIGHT", "elk.hierarchyHandling": "INCLUDE_CHILDREN", "elk.json.edgeCoords": "ROOT", "elk.spacing.nodeNode": "30", "elk.layered.spacing.nodeNodeBetweenLayers": "60", "elk.edgeLabels.inline": "false" };
  return { id: "graph", children: root.children, edges, layoutOptions: options };
}

async function layOut(machine: Machine): Promise<LaidOut> {
  // ELK is large: loaded only when this page draws a machine, never with the first page.
  const { default: ELK } = await import("elkjs/lib/elk.bundled.js");
  const laid = (await new ELK().layout(graphOf(machine) as never)) as unknown as ElkNode;
  const states = new Map<string, MachineState>();
  const collect = (state: MachineState) => {
    states.set(state.id, state);
    Object.values(state.states).forEach(collect);
  };
  collect(machine.root);
  const nodes: LaidOut["nodes"] = [];
  const edges: LaidOut["edges"] = [];
  // A node's position is relative to its parent box.
  const walk = (node: ElkNode, offsetX: number, offsetY: number) => {
    for (const child of node.children ?? []) {
      const x = offsetX + (child.x ?? 0);
      const y = offsetY + (child.y ?? 0);
      const state = states.get(child.id)!;
      nodes.push({ path: pathOf(machine, state), label: state.key, x, y, width: child.width ?? 0, height: child.height ?? 0, compound: Boolean(child.children?.length), final: state.type === "final" });
      walk(child, x, y);
    }
  };
  walk(laid, 0, 0);
  for (const edge of laid.edges ?? []) {
    const section = edge.sections?.[0];
    if (!section) continue;
    const label = edge.labels?.[0];
    const [from, to] = [edge.sources[0]!, edge.targets[0]!].map((id) => pathOf(machine, states.get(id)!));
    edges.push({ id: edge.id, from: from!, to: to!, label: label?.text ?? "", points: [section.startPoint, ...(section.bendPoints ?? []), section.endPoint], labelAt: label && { x: label.x ?? 0, y: (label.y ?? 0) + 10 } });
  }
  return { nodes, edges, width: laid.width ?? 0, height: laid.height ?? 0 };
}

function Statechart({ machine, counts, current, onPick }: { machine: Machine; counts: Map<string, number>; current?: string; onPick(path: string): void }) {
  const layout = useResource(() => layOut(machine), [machine]);
  if (layout.error) return <ErrorState error={layout.error} />;
  if (!layout.data) return <Loading what="Laying out the machine" />;
  const { nodes, edges, width, height } = layout.data;
  const countIn = (path: string) => [...counts].filter(([state]) => state === path || state.startsWith(`${path}.`)).reduce((sum, [, count]) => sum + count, 0);
  return (
    <svg class="statechart" width={width + 20} height={height + 20} viewBox={`-10 -10 ${width + 20} ${height + 20}`} style={{ minWidth: `${Math.min(NARROWEST_CHART_PX, width + 20)}px` }} role="img" aria-label={`Statechart of ${machine.kind}`}>
      <defs>
        <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead" />
        </marker>
      </defs>
      {nodes
        .filter((node) => node.compound)
        .map((node) => (
          <g key={node.path} class="state compound" data-state={node.path}>
            <rect x={node.x} y={node.y} width={node.width} height={node.height} rx={10} />
            <text x={node.x + 10} y={node.y + 18}>
              {node.label} ({countIn(node.path)})
            </text>
          </g>
        ))}
      {edges.map((edge) => (
        <g key={edge.id} class="transition" data-from={edge.from} data-to={edge.to}>
          <polyline points={edge.points.map((point) => `${point.x},${point.y}`).join(" ")} marker-end="url(#arrow)" />
          {edge.labelAt && (
            <text x={edge.labelAt.x} y={edge.labelAt.y}>
              {edge.label}
            </text>
          )}
        </g>
      ))}
      {nodes
        .filter((node) => !node.compound)
        .map((node) => {
          const count = countIn(node.path);
          return (
            <g key={node.path} data-state={node.path} class={`state${node.path === current ? " current" : ""}${node.final ? " final" : ""}`} role="button" tabIndex={0} aria-current={node.path === current ? "true" : undefined} onClick={() => onPick(node.path)} onKeyDown={(event) => event.key === "Enter" && onPick(node.path)}>
              {/* The name: a title, which also shows on hover, rather than an aria-label the visible text would have to repeat. */}
              <title>{`${node.path}: ${count} instances`}</title>
              <rect x={node.x} y={node.y} width={node.width} height={node.height} rx={8} />
              <text x={node.x + node.width / 2} y={node.y + 19} text-anchor="middle">
                {node.label}
              </text>
              <text x={node.x + node.width / 2} y={node.y + 35} text-anchor="middle" class="count">
                {count}
              </text>
            </g>
          );
        })}
    </svg>
  );
}

function Instance({ kind, id }: { kind: string; id: string }) {
  const instance = useResource(() => actors.find(kind, id), [kind, id]);
  if (instance.error) return <ErrorState error={instance.error} retry={instance.reload} />;
  if (!instance.data) return <Loading />;
  return (
    <section class="card" aria-label={`Instance ${id}`}>
      <h2>
        {id} <span class="badge badge-neutral">{instance.data.state_path}</span>
      </h2>
      <ol class="timeline" aria-label="Transitions">
        {instance.data.transitions.map((transition) => (
          <li key={transition.seq}>
            <strong>{transition.to_path}</strong> <span class="muted">
              from {transition.from_path ?? "start"}: <span title={transition.event}>{readableEvent(transition.event)}</span>
            </span> <span class="muted small">{formatTime(transition.at)} · {transition.node}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

/** Each kind of long-lived thing as its statechart, with live counts per state, its instances and one instance's path. */
export function LifecyclesPage() {
  const machines = useResource(actors.machines, []);
  const [kind, setKind] = useState("");
  const [state, setState] = useState<string>();
  const [picked, setPicked] = useState<string>();
  const [search, setSearch] = useState("");
  const [tick, setTick] = useState(0);
  const counts = useResource(actors.counts, [tick]);
  const machine = machines.data?.find((entry) => entry.kind === kind) ?? machines.data?.[0];
  const listed = useResource(() => (machine && state ? actors.list({ kind: machine.kind, state, limit: 50 }) : Promise.resolve([])), [machine?.kind, state, tick]);
  const instance = useResource(() => (machine && picked ? actors.find(machine.kind, picked) : Promise.resolve(undefined)), [machine?.kind, picked, tick]);
  // Transitions as they happen: counts and the picked instance follow.
  useEffect(() => {
    const events = new EventSource("/api/actors/events");
    events.addEventListener("transition", () => setTick((count) => count + 1));
    return () => events.close();
  }, []);
  if (machines.error) return <ErrorState error={machines.error} retry={machines.reload} />;
  if (!machines.data || !machine) return <Loading />;
  const ofKind = new Map((counts.data ?? []).filter((row) => row.kind === machine.kind).map((row) => [row.state, row.count]));
  return (
    <>
      <PageHeader title="Lifecycles" />
      <div class="toolbar">
        <SelectField label="Kind" value={machine.kind} onValue={(value) => (setKind(value), setState(undefined), setPicked(undefined))} options={machines.data.map((entry) => entry.kind)} />
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            setPicked(search.trim() || undefined);
          }}
        >
          <TextField label="Instance id" value={search} onValue={setSearch} />
          <button type="submit">Find</button>
        </form>
      </div>
      <div class="lifecycle">
        <div class="card chart-card">
          <Statechart machine={machine} counts={ofKind} current={instance.data?.state_path} onPick={(path) => setState(path)} />
        </div>
        <div>
          {state && (
            <section class="card" aria-label={`Instances in ${state}`}>
              <h2>In {state}</h2>
              {listed.data?.length === 0 && <p class="muted">No instance stands here now.</p>}
              <ul>
                {listed.data?.map((entry) => (
                  <li key={entry.id}>
                    <button type="button" class="link" onClick={() => setPicked(entry.id)}>
                      {entry.id}
                    </button>{" "}
                    <span class="muted small">{formatTime(entry.updated_at)}</span>
                  </li>
                ))}
              </ul>
            </section>
          )}
          {picked && <Instance key={`${picked}:${tick}`} kind={machine.kind} id={picked} />}
        </div>
      </div>
    </>
  );
}
