import { useEffect, useState } from "preact/hooks";
import { webhooks } from "../api/endpoints";
import type { Delivery, WebhookEndpoint, WebhookEvent } from "../api/types";
import { useFeedback } from "../components/feedback";
import { Checkbox, TextField } from "../components/fields";
import { PageHeader } from "../components/layout";
import { Panel, SecretShownOnce } from "../components/panel";
import { Empty, ErrorState, Loading } from "../components/states";
import { AsyncJobs } from "./async-jobs";
import { formatTime } from "../lib/format";
import { useResource } from "../lib/use-resource";
import { messageOf, useSave } from "../lib/use-save";
import { useCan } from "../session";
import { TableHead } from "../components/table-head";
import { DeleteButton, EditButton } from "../components/widgets";

const EVENTS: Array<{ event: WebhookEvent; label: string }> = [
  { event: "async_job.completed", label: "Async job completed" },
  { event: "async_job.failed", label: "Async job failed" },
  { event: "webhook_endpoint.disabled", label: "An endpoint was disabled" },
  { event: "webhook_endpoint.enabled", label: "An endpoint was enabled again" },
];
const REFRESH_MS = 3000;

function EndpointForm({ editing, onClose, onCreated, reload }: { editing?: WebhookEndpoint; onClose(): void; onCreated(name: string, secret: string): void; reload(): void }) {
  const [name, setName] = useState(editing?.name ?? "");
  const [url, setUrl] = useState(editing?.url ?? "");
  const [events, setEvents] = useState<WebhookEvent[]>(editing?.events ?? ["async_job.completed", "async_job.failed"]);
  const [privateNetwork, setPrivateNetwork] = useState(editing?.allow_private_network ?? false);
  const [includeResponse, setIncludeResponse] = useState(editing?.include_response ?? false);
  const [retries, setRetries] = useState(String(editing?.max_retries ?? 4));
  const { save, errorFor } = useSave(reload);
  const submit = async (event: Event) => {
    event.preventDefault();
    const input = { name: name.trim(), url: url.trim(), events, allow_private_network: privateNetwork, include_response: includeResponse, max_retries: Number(retries) };
    if (editing) {
      if (await save(() => webhooks.update(editing.id, input), `Endpoint ${input.name} saved`)) onClose();
      return;
    }
    let secret = "";
    if (await save(async () => (secret = (await webhooks.create(input)).secret), `Endpoint ${input.name} created`)) onCreated(input.name, secret);
  };
  return (
    <Panel title={editing ? `Edit endpoint ${editing.name}` : "Add a webhook endpoint"} onClose={onClose}>
      <form onSubmit={submit}>
        <TextField label="Name" required value={name} onValue={setName} error={errorFor("name")} hint="Async requests name it in the x-gw-async-webhook header." />
        <TextField label="URL" type="url" required value={url} onValue={setUrl} error={errorFor("url")} hint="HTTPS, unless private networks are allowed below." />
        <fieldset>
          <legend>Events</legend>
          {EVENTS.map(({ event, label }) => (
            <Checkbox key={event} label={label} checked={events.includes(event)} onChecked={(checked) => setEvents(checked ? [...events, event] : events.filter((entry) => entry !== event))} />
          ))}
          {errorFor("events") && (
            <p class="field-error" role="alert">
              {errorFor("events")}
            </p>
          )}
        </fieldset>
        <TextField label="Retries" inputMode="numeric" value={retries} onValue={setRetries} hint="After the first failed attempt, with doubling backoff." error={errorFor("max_retries")} />
        <Checkbox label="Allow private networks and plain http" checked={privateNetwork} onChecked={setPrivateNetwork} />
        <Checkbox label="Include the job's response in the payload" checked={includeResponse} onChecked={setIncludeResponse} />
        <div class="actions">
          <button type="submit" class="primary">
            {editing ? "Save endpoint" : "Add endpoint"}
          </button>
        </div>
      </form>
    </Panel>
  );
}

function SecretShown({ name, secret, onClose }: { name: string; secret: string; onClose(): void }) {
  return (
    <SecretShownOnce
      title={`Signing secret of ${name}`}
      noun="signing secret"
      label="Signing secret"
      secret={secret}
      usage="Receivers verify each delivery's webhook-signature header with it (Standard Webhooks)."
      copyLabel="Copy secret"
      onClose={onClose}
    />
  );
}

function Deliveries({ endpoint, onClose }: { endpoint: WebhookEndpoint; onClose(): void }) {
  const can = useCan();
  const { toast } = useFeedback();
  const history = useResource(() => webhooks.deliveries(endpoint.id), [endpoint.id]);
  // Retries happen in the background: the history refreshes while it is open.
  useEffect(() => {
    const timer = setInterval(history.reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [history.reload]);
  const redeliver = async (delivery: Delivery) => {
    try {
      await webhooks.redeliver(delivery.id);
      toast("Delivery queued again");
      history.reload();
    } catch (error) {
      toast(messageOf(error), "error");
    }
  };
  return (
    <Panel title={`Deliveries to ${endpoint.name}`} onClose={onClose} wide>
      {history.error && <ErrorState error={history.error} retry={history.reload} />}
      {!history.data && !history.error && <Loading />}
      {history.data?.length === 0 && (
        <Empty title="No delivery yet">
          <p>Send a test delivery, or submit an async job with the header x-gw-async-webhook: {endpoint.name}.</p>
        </Empty>
      )}
      {!!history.data?.length && (
        <table aria-label="Deliveries">
          <TableHead columns={["Created", "Event", "Status", { label: "Attempts", number: true }, "Last answer", "Next retry"]} actions />
          <tbody>
            {history.data.map((delivery) => (
              <tr key={delivery.id}>
                <td>{formatTime(delivery.created_at)}</td>
                <td>
                  {delivery.event}
                  {delivery.job_id && <div class="muted small">job {delivery.job_id}</div>}
                  {delivery.redelivery_of && <div class="muted small">redelivery</div>}
                </td>
                <td>
                  <span class={`badge badge-${delivery.status === "delivered" ? "ok" : ["failed", "exhausted"].includes(delivery.status) ? "bad" : "neutral"}`}>{delivery.status}</span>
                </td>
                <td class="number">{delivery.attempt_count}</td>
                <td>
                  {delivery.last_status_code ?? "–"}
                  {delivery.attempts.at(-1)?.error && <div class="muted small">{delivery.attempts.at(-1)?.error}</div>}
                </td>
                <td>{delivery.next_attempt_at ? formatTime(delivery.next_attempt_at) : "–"}</td>
                <td class="row-actions">
                  {can("Webhooks:Create") && (
                    <button type="button" onClick={() => redeliver(delivery)}>
                      Redeliver
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}

/** Webhook endpoints (add, edit, test, their delivery history and redelivery) and the async jobs they are told of. */
export function WebhooksPage() {
  const can = useCan();
  const { toast, confirm } = useFeedback();
  const list = useResource(webhooks.list, []);
  const { save } = useSave(list.reload);
  const [form, setForm] = useState<{ editing?: WebhookEndpoint }>();
  const [secret, setSecret] = useState<{ name: string; secret: string }>();
  const [history, setHistory] = useState<WebhookEndpoint>();
  const test = async (endpoint: WebhookEndpoint) => {
    try {
      const delivery = await webhooks.test(endpoint.id);
      toast(delivery.status === "delivered" ? `Test delivered to ${endpoint.name} (${delivery.last_status_code})` : `Test to ${endpoint.name}: ${delivery.status}${delivery.last_status_code ? ` (${delivery.last_status_code})` : ""}`, delivery.status === "delivered" ? "success" : "error");
      list.reload();
    } catch (error) {
      toast(messageOf(error), "error");
    }
  };
  const rotate = async (endpoint: WebhookEndpoint) => {
    if (!(await confirm(`Rotate the secret of ${endpoint.name}?`, <p>Deliveries are signed with the new secret from now on; update the receiver.</p>, "Rotate"))) return;
    try {
      const rotated = await webhooks.rotateSecret(endpoint.id);
      setSecret({ name: endpoint.name, secret: rotated.secret });
    } catch (error) {
      toast(messageOf(error), "error");
    }
  };
  const remove = async (endpoint: WebhookEndpoint) => {
    if (await confirm(`Delete endpoint ${endpoint.name}?`, <p>Pending deliveries to it are dropped.</p>)) await save(() => webhooks.remove(endpoint.id), `Endpoint ${endpoint.name} deleted`);
  };
  return (
    <>
      <PageHeader title="Webhooks and async jobs">
        {can("Webhooks:Create") && (
          <button type="button" class="primary" onClick={() => setForm({})}>
            Add endpoint
          </button>
        )}
      </PageHeader>
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {!list.data && !list.error && <Loading />}
      {list.data?.length === 0 && (
        <Empty title="No webhook endpoint yet">
          <p>Add an endpoint to be told when async jobs (POST /v1/async/...) finish, signed so the receiver can trust it.</p>
        </Empty>
      )}
      {!!list.data?.length && (
        <div class="table-wrap">
          <table aria-label="Webhook endpoints">
            <TableHead columns={["Name", "URL", "Events", "Health"]} actions />
            <tbody>
              {list.data.map((endpoint) => (
                <tr key={endpoint.id}>
                  <td>
                    {endpoint.name}
                  </td>
                  <td class="small">{endpoint.url}</td>
                  <td class="small">{endpoint.events.join(", ")}</td>
                  <td class="small">
                    <span class={`badge badge-${endpoint.state === "active" ? "ok" : endpoint.state === "disabled" ? "neutral" : "bad"}`}>{endpoint.state.replace("_", " ")}</span>
                    {endpoint.consecutive_failures > 0 && <div class="muted">{endpoint.consecutive_failures} failed attempts in a row</div>}
                    {endpoint.disabled_reason && <div class="muted">{endpoint.disabled_reason}</div>}
                    {!endpoint.last_success_at && !endpoint.consecutive_failures && <div class="muted">no delivery yet</div>}
                  </td>
                  <td class="row-actions">
                    <button type="button" onClick={() => setHistory(endpoint)} aria-label={`Deliveries of ${endpoint.name}`}>
                      Deliveries
                    </button>
                    {can("Webhooks:Update") && (
                      <>
                        <button type="button" onClick={() => test(endpoint)} aria-label={`Send a test to ${endpoint.name}`}>
                          Test
                        </button>
                        <EditButton name={endpoint.name} onEdit={() => setForm({ editing: endpoint })} />
                        <button type="button" onClick={() => rotate(endpoint)}>
                          Rotate secret
                        </button>
                      </>
                    )}
                    {can("Webhooks:Delete") && (
                      <DeleteButton name={endpoint.name} onDelete={() => remove(endpoint)} />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <AsyncJobs />
      {form && (
        <EndpointForm
          editing={form.editing}
          reload={list.reload}
          onClose={() => setForm(undefined)}
          onCreated={(name, created) => {
            setForm(undefined);
            setSecret({ name, secret: created });
          }}
        />
      )}
      {secret && <SecretShown {...secret} onClose={() => setSecret(undefined)} />}
      {history && <Deliveries endpoint={history} onClose={() => setHistory(undefined)} />}
    </>
  );
}
