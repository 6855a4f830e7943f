import { useState } from "preact/hooks";
import { ApiError } from "../api/client";
import { access } from "../api/endpoints";
import type { ApiKey, AuditEvent, Permission, Role } from "../api/types";
import { useFeedback } from "../components/feedback";
import { SelectField, TextField } from "../components/fields";
import { PageHeader } from "../components/layout";
import { Panel, SecretShownOnce } from "../components/panel";
import { ErrorState, Loading } from "../components/states";
import { DeleteButton } from "../components/widgets";
import { formatTime } from "../lib/format";
import { followLink } from "../lib/router";
import { useResource } from "../lib/use-resource";
import { messageOf, useSave } from "../lib/use-save";
import { useCan, useSession } from "../session";
import { TableHead } from "../components/table-head";

/** The matrix's columns, in this order, those the catalogue has (Prompts alone has Edit and Deploy). */
const OPERATIONS = ["View", "Create", "Update", "Delete", "Edit", "Deploy"];

const isEnterpriseOnly = (error: Error | undefined) => error instanceof ApiError && error.errorType === "caller_enterprise_feature";

/** A section that exists only in the enterprise edition says so, instead of showing an error. */
function Section({ error, retry, children }: { error?: Error; retry(): void; children: preact.ComponentChildren }) {
  if (isEnterpriseOnly(error)) {
    return (
      <div class="state state-empty">
        <h2>Enterprise edition</h2>
        <p>{error!.message}.</p>
      </div>
    );
  }
  if (error) return <ErrorState error={error} retry={retry} />;
  return <>{children}</>;
}

/** Permissions grouped by resource: a row per resource, a checkbox per operation it has. */
function PermissionMatrix({ permissions, chosen, onChange, disabled, label }: { permissions: Permission[]; chosen: Set<number>; onChange(ids: Set<number>): void; disabled?: boolean; label: string }) {
  const resources = [...new Set(permissions.map((permission) => permission.resource))];
  const operations = OPERATIONS.filter((operation) => permissions.some((permission) => permission.operation === operation));
  return (
    <table aria-label={label} class="matrix">
      <TableHead columns={["Resource", ...operations]} />
      <tbody>
        {resources.map((resource) => (
          <tr key={resource}>
            <th scope="row">{resource}</th>
            {operations.map((operation) => {
              const permission = permissions.find((entry) => entry.resource === resource && entry.operation === operation);
              return (
                <td key={operation}>
                  {permission && (
                    <input
                      type="checkbox"
                      aria-label={permission.name}
                      disabled={disabled}
                      checked={chosen.has(permission.id)}
                      onChange={(event) => {
                        const next = new Set(chosen);
                        if (event.currentTarget.checked) next.add(permission.id);
                        else next.delete(permission.id);
                        onChange(next);
                      }}
                    />
                  )}
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Roles() {
  const can = useCan();
  const data = useResource(() => Promise.all([access.roles(), access.permissions()]), []);
  const { save } = useSave(data.reload);
  const [editing, setEditing] = useState<{ role?: Role; name: string; ids: Set<number> }>();
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!editing) return;
    const ids = [...editing.ids];
    const role = editing.role;
    const ok = role ? await save(() => access.setRolePermissions(role.id, ids), `Permissions of ${role.name} saved`) : await save(() => access.createRole(editing.name.trim(), ids), `Role ${editing.name} created`);
    if (ok) setEditing(undefined);
  };
  const [roles, permissions] = data.data ?? [];
  return (
    <Section error={data.error} retry={data.reload}>
      {!data.data ? (
        <Loading />
      ) : (
        <>
          <div class="toolbar">
            {can("Roles:Create") && (
              <button type="button" class="primary" onClick={() => setEditing({ name: "", ids: new Set() })}>
                Create role
              </button>
            )}
          </div>
          <div class="table-wrap">
            <table aria-label="Roles">
              <TableHead columns={["Role", "Permissions"]} actions />
              <tbody>
                {roles!.map((role) => (
                  <tr key={role.id}>
                    <td>
                      {role.name} {role.is_builtin && <span class="badge badge-neutral">built-in</span>}
                    </td>
                    <td class="small">{role.permission_ids.length} of {permissions!.length}</td>
                    <td class="row-actions">
                      <button type="button" onClick={() => setEditing({ role, name: role.name, ids: new Set(role.permission_ids) })} aria-label={`Permissions of ${role.name}`}>
                        Permissions
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {editing && (
            <Panel title={editing.role ? `Permissions of ${editing.role.name}` : "Create a role"} onClose={() => setEditing(undefined)} wide>
              <form onSubmit={submit}>
                {!editing.role && <TextField label="Role name" required value={editing.name} onValue={(name) => setEditing({ ...editing, name })} />}
                <PermissionMatrix
                  label="Permission matrix"
                  permissions={permissions!}
                  chosen={editing.ids}
                  onChange={(ids) => setEditing({ ...editing, ids })}
                  disabled={editing.role?.is_builtin && editing.role.name === "Admin" ? true : !can(editing.role ? "Roles:Update" : "Roles:Create")}
                />
                <div class="actions">
                  <button type="submit" class="primary" disabled={!can(editing.role ? "Roles:Update" : "Roles:Create")}>
                    {editing.role ? "Save permissions" : "Create role"}
                  </button>
                </div>
              </form>
            </Panel>
          )}
        </>
      )}
    </Section>
  );
}

function Users() {
  const can = useCan();
  const { confirm } = useFeedback();
  // Roles are what the form picks from; a role that may not list them types the role's id.
  const canListRoles = can("Roles:View");
  const data = useResource(() => Promise.all([access.users(), canListRoles ? access.roles() : Promise.resolve([])]), []);
  const { save, errorFor } = useSave(data.reload);
  const [form, setForm] = useState<{ username: string; password: string; role: string }>();
  const [users, roles] = data.data ?? [];
  const submit = async (event: Event) => {
    event.preventDefault();
    if (form && (await save(() => access.createUser({ username: form.username.trim(), role_id: Number(form.role), password: form.password || undefined }), `User ${form.username} created`))) setForm(undefined);
  };
  return (
    <Section error={data.error} retry={data.reload}>
      {!data.data ? (
        <Loading />
      ) : (
        <>
          <div class="toolbar">
            {can("Users:Create") && (
              <button type="button" class="primary" onClick={() => setForm({ username: "", password: "", role: String(roles![0]?.id ?? "") })}>
                Add user
              </button>
            )}
          </div>
          {users!.length === 0 ? (
            <p class="muted">No user yet: add one per person who signs in to the dashboard, each with a role.</p>
          ) : (
            <div class="table-wrap">
              <table aria-label="Users">
                <TableHead columns={["User", "Role", "Signs in"]} actions />
                <tbody>
                  {users!.map((user) => (
                    <tr key={user.id}>
                      <td>{user.username}</td>
                      <td>{user.role}</td>
                      <td>{user.has_password ? "with a password" : <span class="muted">no password</span>}</td>
                      <td class="row-actions">
                        {can("Users:Delete") && (
                          <DeleteButton name={user.username} onDelete={async () => (await confirm(`Delete user ${user.username}?`, <p>Their sessions end.</p>)) && save(() => access.removeUser(user.id), `User ${user.username} deleted`)} />
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {form && (
            <Panel title="Add a user" onClose={() => setForm(undefined)}>
              <form onSubmit={submit}>
                <TextField label="Username" required value={form.username} onValue={(username) => setForm({ ...form, username })} error={errorFor("username")} />
                <TextField label="Password" type="password" autocomplete="new-password" value={form.password} onValue={(password) => setForm({ ...form, password })} hint="At least 8 characters; without one the user cannot sign in." error={errorFor("password")} />
                {canListRoles ? (
                  <SelectField label="Role" value={form.role} onValue={(role) => setForm({ ...form, role })} options={roles!.map((role) => ({ value: String(role.id), label: role.name }))} />
                ) : (
                  <TextField label="Role id" required inputMode="numeric" value={form.role} onValue={(role) => setForm({ ...form, role })} hint="Your role may not list roles (Roles:View): ask an administrator for the id." error={errorFor("role_id")} />
                )}
                <div class="actions">
                  <button type="submit" class="primary">
                    Add user
                  </button>
                </div>
              </form>
            </Panel>
          )}
        </>
      )}
    </Section>
  );
}

function ApiKeys() {
  const can = useCan();
  const { confirm } = useFeedback();
  const data = useResource(() => Promise.all([access.apiKeys(), access.permissions()]), []);
  const { save, errorFor } = useSave(data.reload);
  const [form, setForm] = useState<{ name: string; scopes: Set<number> }>();
  const [created, setCreated] = useState<{ name: string; key: string }>();
  const [keys, permissions] = data.data ?? [];
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!form) return;
    let key = "";
    if (await save(async () => (key = (await access.createApiKey({ name: form.name.trim(), scopes: [...form.scopes] })).key), `API key ${form.name} created`)) {
      setCreated({ name: form.name, key });
      setForm(undefined);
    }
  };
  const remove = async (key: ApiKey) => {
    if (await confirm(`Delete API key ${key.name}?`, <p>Scripts using it are refused from now on.</p>)) await save(() => access.removeApiKey(key.id), `API key ${key.name} deleted`);
  };
  return (
    <Section error={data.error} retry={data.reload}>
      {!data.data ? (
        <Loading />
      ) : (
        <>
          <div class="toolbar">
            {can("APIKeys:Create") && (
              <button type="button" class="primary" onClick={() => setForm({ name: "", scopes: new Set() })}>
                Create API key
              </button>
            )}
          </div>
          {keys!.length === 0 ? (
            <p class="muted">No API key yet: create one for each script or CI job that calls the management API, with only the permissions it needs.</p>
          ) : (
            <div class="table-wrap">
              <table aria-label="API keys">
                <TableHead columns={["Name", "Key", "Scopes", "Expires"]} actions />
                <tbody>
                  {keys!.map((key) => (
                    <tr key={key.id}>
                      <td>{key.name}</td>
                      <td>
                        <code>{key.key_prefix}…</code>
                      </td>
                      <td class="small">{key.scopes.map((id) => permissions!.find((permission) => permission.id === id)?.name ?? id).join(", ") || "none"}</td>
                      <td>{key.expires_at ? formatTime(key.expires_at) : "never"}</td>
                      <td class="row-actions">
                        {can("APIKeys:Delete") && (
                          <DeleteButton name={key.name} onDelete={() => remove(key)} />
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {form && (
            <Panel title="Create an API key" onClose={() => setForm(undefined)} wide>
              <form onSubmit={submit}>
                <TextField label="Name" required value={form.name} onValue={(name) => setForm({ ...form, name })} error={errorFor("name")} />
                <PermissionMatrix label="Scopes" permissions={permissions!} chosen={form.scopes} onChange={(scopes) => setForm({ ...form, scopes })} />
                {errorFor("scopes") && (
                  <p class="field-error" role="alert">
                    {errorFor("scopes")}
                  </p>
                )}
                <div class="actions">
                  <button type="submit" class="primary">
                    Create API key
                  </button>
                </div>
              </form>
            </Panel>
          )}
          {created && (
            <SecretShownOnce
              title={`API key ${created.name} created`}
              noun="key"
              label="API key value"
              secret={created.key}
              usage="Send it as Authorization: Bearer <key>."
              copyLabel="Copy key"
              onClose={() => setCreated(undefined)}
            />
          )}
        </>
      )}
    </Section>
  );
}

function AuditRow({ event }: { event: AuditEvent }) {
  const { toast } = useFeedback();
  const [verdict, setVerdict] = useState<boolean>();
  const verify = async () => {
    try {
      setVerdict((await access.verify(event.id)).valid);
    } catch (error) {
      toast(messageOf(error), "error");
    }
  };
  return (
    <tr>
      <td>{formatTime(event.timestamp)}</td>
      <td>
        {event.initiator.type} {event.initiator.id}
      </td>
      <td>
        <code>{event.action}</code>
        <div class="muted small">
          {event.method} {event.path}
        </div>
      </td>
      <td>
        <span class={`badge badge-${event.outcome === "success" ? "ok" : "bad"}`}>{event.outcome}</span>
      </td>
      <td>
        {verdict === undefined ? (
          <button type="button" onClick={verify} aria-label={`Verify the signature of ${event.action} at ${formatTime(event.timestamp)}`}>
            Verify
          </button>
        ) : verdict ? (
          <span class="badge badge-ok">signature valid</span>
        ) : (
          <span class="badge badge-bad">tampered</span>
        )}
      </td>
    </tr>
  );
}

function AuditLog() {
  const [search, setSearch] = useState("");
  const [outcome, setOutcome] = useState("");
  const events = useResource(() => access.audit({ search: search || undefined, outcome: outcome || undefined, limit: 100 }), [search, outcome]);
  return (
    <Section error={events.error} retry={events.reload}>
      <div class="filters filter-row" role="search" aria-label="Audit filters">
        <TextField label="Search" type="search" value={search} onValue={setSearch} placeholder="action, path, who, target" />
        <SelectField
          label="Outcome"
          value={outcome}
          onValue={setOutcome}
          options={[
            { value: "", label: "Any outcome" },
            { value: "success", label: "Success" },
            { value: "failure", label: "Failure" },
            { value: "denied", label: "Denied" },
          ]}
        />
      </div>
      {!events.data ? (
        <Loading />
      ) : events.data.length === 0 ? (
        <p class="muted">No event matches.</p>
      ) : (
        <div class="table-wrap">
          <table aria-label="Audit log">
            <TableHead columns={["Time", "Who", "Action", "Outcome", "Signature"]} />
            <tbody>
              {events.data.map((event) => (
                <AuditRow key={event.id} event={event} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

function SignInSettings() {
  const can = useCan();
  const config = useResource(access.authConfig, []);
  const [username, setUsername] = useState<string>();
  const [password, setPassword] = useState("");
  const { save, errorFor } = useSave(config.reload);
  if (config.error) return <ErrorState error={config.error} retry={config.reload} />;
  if (!config.data) return <Loading />;
  const name = username ?? config.data.admin_username;
  const submit = async (event: Event) => {
    event.preventDefault();
    if (await save(() => access.updateAuth({ admin_username: name.trim(), admin_password: password || undefined, enabled: true }), "Admin account saved: sign in again")) setPassword("");
  };
  return (
    <form class="card" onSubmit={submit} aria-label="Admin account">
      <p class="muted">The admin account holds every permission. Changing its name or password ends every admin session, this one included.</p>
      <TextField label="Admin username" required value={name} onValue={setUsername} error={errorFor("admin_username")} />
      <TextField label="New password" type="password" autocomplete="new-password" value={password} onValue={setPassword} hint="Leave empty to keep the current one; at least 8 characters." error={errorFor("admin_password")} />
      <button type="submit" class="primary" disabled={!can("Config:Update")}>
        Save admin account
      </button>
    </form>
  );
}

const SECTIONS = [
  { slug: "users", label: "Users", permission: "Users:View", Section: Users, enterprise: true },
  { slug: "roles", label: "Roles", permission: "Roles:View", Section: Roles, enterprise: true },
  { slug: "api-keys", label: "API keys", permission: "APIKeys:View", Section: ApiKeys, enterprise: true },
  { slug: "audit", label: "Audit log", permission: "AuditLogs:View", Section: AuditLog, enterprise: true },
  { slug: "sign-in", label: "Admin account", permission: "Config:View", Section: SignInSettings, enterprise: false },
];

/** On the open-source edition: what the enterprise sections would be, said once, above the admin account. */
const OpenSourceNote = () => (
  <div class="card" role="note">
    <h2>Enterprise edition</h2>
    <p class="muted">Users, roles, API keys and the audit log come with the enterprise edition. This deployment runs the open-source edition: the admin account here is its only sign-in.</p>
  </div>
);

/** Who may use the gateway's management: users and roles, API keys, the audit log, the admin account. */
export function AccessPage({ path }: { path: string }) {
  const can = useCan();
  const oss = useSession().me.edition === "oss";
  const visible = SECTIONS.filter((section) => can(section.permission) && !(oss && section.enterprise));
  const current = visible.find((section) => path.endsWith(`/${section.slug}`)) ?? visible[0];
  return (
    <>
      <PageHeader title="Access" />
      <nav class="tabs" aria-label="Access sections">
        {visible.map((section) => (
          <a key={section.slug} href={`/ui/access/${section.slug}`} aria-current={section === current ? "page" : undefined} onClick={(event) => followLink(event, `/ui/access/${section.slug}`)}>
            {section.label}
          </a>
        ))}
      </nav>
      {oss && <OpenSourceNote />}
      {current && <current.Section />}
    </>
  );
}
