import { useEffect, useState } from "preact/hooks";
import { actors } from "../api/endpoints";
import { SelectField, TextField } from "../components/fields";
import { PageHeader } from "../components/layout";
import { ErrorState, Loading } from "../components/states";
import { transitionLabel } from "../lib/event-names";
import { formatTime } from "../lib/format";
import { useResource } from "../lib/use-resource";
import { InstanceCard, type Step, stepsOf } from "./lifecycle-instance";
import type { ActorRecord, DescribedMachine as Machine, DescribedState as MachineState } from "./lifecycle-types";

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
/** `completed` holds `completed` and `completed.retained`; the root ("") holds every state. */
const holds = (outer: string, path: string) => outer === "" || path === outer || path.startsWith(`${outer}.`);

/** An instance's path drawn on the chart: the steps at which it entered each state, and the transitions it took. */
interface Walk {
  stepsIn(path: string): number[];
  took(from: string, to: string): boolean;
}

function walkOf(steps: Step[]): Walk {
  return {
    stepsIn: (path) => steps.flatMap((step, index) => (step.state === path ? [index + 1] : [])),
    took: (from, to) => steps.some((step) => step.from !== null && holds(from, step.from) && holds(to, step.state)),
  };
}

/** The machine as an ELK graph: states as (nested) boxes, transitions as labelled edges. */
function graphOf(machine: Machine): ElkNode {
  const edges: NonNullable<ElkNode["edges"]> = [];
  const nodeOf = (state: MachineState): ElkNode => {
    const children = Object.values(state.states).map(nodeOf);
    for (const [index, transition] of state.transitions.entries()) {
      for (const target of transition.targets) {
        const label = transitionLabel(transition, state);
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

function Statechart({ machine, counts, current, walk, onPick }: { machine: Machine; counts: Map<string, number>; current?: string; walk?: Walk; onPick(path: string): void }) {
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
        <g key={edge.id} class={`transition${walk?.took(edge.from, edge.to) ? " walked" : ""}`} data-from={edge.from} data-to={edge.to}>
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
          const steps = walk?.stepsIn(node.path) ?? [];
          const passed = steps.length ? `; the instance's step ${steps.join(", ")}` : "";
          return (
            <g key={node.path} data-state={node.path} class={`state${node.path === current ? " current" : ""}${node.final ? " final" : ""}${steps.length ? " visited" : ""}`} role="button" tabIndex={0} aria-current={node.path === current ? "true" : undefined} onClick={() => onPick(node.path)} onKeyDown={(event) => event.key === "Enter" && onPick(node.path)}>
              {/* The name: a title, which also shows on hover, rather than an aria-label the visible text would have to repeat. */}
              <title>{`${node.path}: ${count} instances${passed}`}</title>
              <rect x={node.x} y={node.y} width={node.width} height={node.height} rx={8} />
              <text x={node.x + node.width / 2} y={node.y + 19} text-anchor="middle">
                {node.label}
              </text>
              <text x={node.x + node.width / 2} y={node.y + 35} text-anchor="middle" class="count">
                {count}
              </text>
              {steps.length > 0 && (
                <text x={node.x + 4} y={node.y - 4} class="step" aria-hidden="true">
                  {steps.join(", ")}
                </text>
              )}
            </g>
          );
        })}
    </svg>
  );
}

/** Each kind of long-lived thing as its statechart, with live counts per state, its instances and one instance's path. */
export function LifecyclesPage() {
  const machines = useResource(() => actors.machines() as Promise<Machine[]>, []);
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
  // The instance shown is the one picked, once loaded (a reload keeps the last one until it answers).
  const record = instance.data?.id === picked && instance.data?.kind === machine.kind ? instance.data : undefined;
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
          <Statechart machine={machine} counts={ofKind} current={record?.state_path} walk={record && walkOf(stepsOf(record, machine))} onPick={(path) => setState(path)} />
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
          {picked && instance.error && <ErrorState error={instance.error} retry={instance.reload} />}
          {picked && !record && !instance.error && <Loading />}
          {record && <InstanceCard record={record} machine={machine} />}
        </div>
      </div>
    </>
  );
}
