import { useState } from "preact/hooks";
import { agents } from "../api/endpoints";
import type { Agent, AgentTask } from "../api/types";
import { useFeedback } from "../components/feedback";
import { Checkbox, SelectField, TextField } from "../components/fields";
import { PageHeader } from "../components/layout";
import { Panel } from "../components/panel";
import { Empty, ErrorState, Loading } from "../components/states";
import { formatTime } from "../lib/format";
import { useResource } from "../lib/use-resource";
import { useSave } from "../lib/use-save";
import { useCan } from "../session";
import { TableHead } from "../components/table-head";
import { EditButton } from "../components/widgets";

interface Card {
  name?: string;
  description?: string;
  version?: string;
  skills?: Array<{ id?: string; name?: string; description?: string }>;
}

const cardOf = (agent: Agent) => (agent.agent_card ?? {}) as Card;

function AgentForm({ editing, onClose, reload }: { editing?: Agent; onClose(): void; reload(): void }) {
  const [name, setName] = useState(editing?.name ?? "");
  const [url, setUrl] = useState(editing?.url ?? "");
  const [description, setDescription] = useState(editing?.description ?? "");
  const [enabled, setEnabled] = useState(editing?.enabled ?? true);
  const { save, errorFor } = useSave(reload);
  const submit = async (event: Event) => {
    event.preventDefault();
    const input = { url: url.trim(), description, enabled };
    if (await save(() => (editing ? agents.update(editing.name, input) : agents.create({ name: name.trim(), ...input })), `Agent ${editing?.name ?? name} saved`)) onClose();
  };
  return (
    <Panel title={editing ? `Edit agent ${editing.name}` : "Add an agent"} onClose={onClose}>
      <form onSubmit={submit}>
        {!editing && <TextField label="Name" required value={name} onValue={setName} hint="Callers reach it at /agents/a2a/<name>." error={errorFor("name")} />}
        <TextField label="Agent URL" type="url" required value={url} onValue={setUrl} hint="Its base URL or its agent card's URL; the gateway reads the card from it." error={errorFor("url")} />
        <TextField label="Description" value={description} onValue={setDescription} />
        <Checkbox label="Enabled" checked={enabled} onChecked={setEnabled} />
        <div class="actions">
          <button type="submit" class="primary">
            {editing ? "Save agent" : "Add agent"}
          </button>
        </div>
      </form>
    </Panel>
  );
}

function AgentCard({ agent, reload, onEdit }: { agent: Agent; reload(): void; onEdit(): void }) {
  const can = useCan();
  const { confirm } = useFeedback();
  const { save } = useSave(reload);
  const card = cardOf(agent);
  const remove = async () => {
    if (await confirm(`Delete agent ${agent.name}?`, <p>Callers can no longer reach it through the gateway.</p>)) await save(() => agents.remove(agent.name), `Agent ${agent.name} deleted`);
  };
  return (
    <section class="card" aria-label={`Agent ${agent.name}`}>
      <div class="card-header">
        <div>
          <h2>
            {agent.name} {!agent.enabled && <span class="badge badge-neutral">disabled</span>}
          </h2>
          <p class="muted small">
            {card.name ?? "no card read yet"}
            {card.version && ` v${card.version}`} · {agent.url} · through the gateway at <code>{agent.gateway_path}</code>
          </p>
        </div>
        <div class="row-actions">
          {can("Agents:Update") && (
            <EditButton name={agent.name} onEdit={onEdit} />
          )}
          {can("Agents:Delete") && (
            <button type="button" class="danger" onClick={remove} aria-label={`Delete ${agent.name}`}>
              Delete
            </button>
          )}
        </div>
      </div>
      {agent.card_error && (
        <p class="field-error" role="alert">
          Its card could not be read: {agent.card_error}
        </p>
      )}
      {(agent.description || card.description) && <p>{agent.description || card.description}</p>}
      {!!card.skills?.length && (
        <ul aria-label={`Skills of ${agent.name}`}>
          {card.skills.map((skill) => (
            <li key={skill.id ?? skill.name}>
              <strong>{skill.name ?? skill.id}</strong> {skill.description && <span class="muted">{skill.description}</span>}
            </li>
          ))}
        </ul>
      )}
      {agent.card_fetched_at && <p class="muted small">Card read {formatTime(agent.card_fetched_at)}</p>}
    </section>
  );
}

const STATES = ["", "submitted", "working", "input_required", "auth_required", "completed", "failed", "canceled", "rejected"];

function TaskRow({ task }: { task: AgentTask }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <tr>
        <td>{formatTime(task.created_at)}</td>
        <td>{task.agent}</td>
        <td>
          <button type="button" class="link" aria-expanded={open} onClick={() => setOpen(!open)} aria-label={`History of task ${task.task_id}`}>
            <code>{task.task_id}</code>
          </button>
        </td>
        <td>
          <span class={`badge badge-${task.state === "completed" ? "ok" : ["failed", "rejected", "canceled"].includes(task.state) ? "bad" : "neutral"}`}>{task.state}</span>
          {task.live && <span class="badge badge-neutral">live</span>}
        </td>
      </tr>
      {open && (
        <tr>
          <td colSpan={4}>
            <ol class="timeline" aria-label={`Transitions of task ${task.task_id}`}>
              {task.transitions.map((transition, index) => (
                <li key={index}>
                  <strong>{transition.state}</strong> <span class="muted">{formatTime(transition.at)}</span>
                </li>
              ))}
            </ol>
          </td>
        </tr>
      )}
    </>
  );
}

function Tasks() {
  const [state, setState] = useState("");
  const tasks = useResource(() => agents.tasks({ state: state || undefined, limit: 100 }), [state]);
  return (
    <section aria-label="Recent tasks">
      <div class="toolbar">
        <h2>Recent tasks</h2>
        <SelectField label="State" value={state} onValue={setState} options={STATES.map((value) => ({ value, label: value || "Any state" }))} />
        <button type="button" onClick={tasks.reload}>
          Refresh tasks
        </button>
      </div>
      {tasks.error && <ErrorState error={tasks.error} retry={tasks.reload} />}
      {!tasks.data && !tasks.error && <Loading />}
      {tasks.data?.length === 0 && <p class="muted">No task went through the gateway{state ? ` in state ${state}` : ""} yet.</p>}
      {!!tasks.data?.length && (
        <div class="table-wrap">
          <table aria-label="Tasks">
            <TableHead columns={["Created", "Agent", "Task", "State"]} />
            <tbody>
              {tasks.data.map((task) => (
                <TaskRow key={`${task.agent}:${task.task_id}`} task={task} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** A2A agents reached through the gateway, their cards, and the tasks seen through them. */
export function AgentsPage() {
  const can = useCan();
  const list = useResource(agents.list, []);
  const [form, setForm] = useState<{ editing?: Agent }>();
  return (
    <>
      <PageHeader title="Agents">
        {can("Agents:Create") && (
          <button type="button" class="primary" onClick={() => setForm({})}>
            Add agent
          </button>
        )}
      </PageHeader>
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {!list.data && !list.error && <Loading />}
      {list.data?.length === 0 && (
        <Empty title="No agent yet">
          <p>Add an A2A agent by its URL: callers then reach it through the gateway with a virtual key, and its tasks are recorded here.</p>
        </Empty>
      )}
      {list.data?.map((agent) => (
        <AgentCard key={agent.name} agent={agent} reload={list.reload} onEdit={() => setForm({ editing: agent })} />
      ))}
      {!!list.data?.length && <Tasks />}
      {form && <AgentForm editing={form.editing} reload={list.reload} onClose={() => setForm(undefined)} />}
    </>
  );
}
