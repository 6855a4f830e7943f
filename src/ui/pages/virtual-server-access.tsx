import { access } from "../api/endpoints";
import type { RbacUser, Role, VirtualKey, VirtualServer } from "../api/types";
import { Checkbox } from "../components/fields";
import { useResource } from "../lib/use-resource";
import { messageOf } from "../lib/use-save";
import { useCan, useSession } from "../session";

/** Who may connect, as the form edits it. */
export interface AccessDraft {
  keys: ReadonlySet<string>;
  roles: ReadonlySet<number>;
  users: ReadonlySet<string>;
}

export const accessDraftOf = (chosen?: VirtualServer["access"]): AccessDraft => ({
  keys: new Set(chosen?.virtual_key_ids ?? []),
  roles: new Set(chosen?.role_ids ?? []),
  users: new Set(chosen?.user_ids ?? []),
});

export const accessOf = (draft: AccessDraft): VirtualServer["access"] => ({ virtual_key_ids: [...draft.keys], role_ids: [...draft.roles], user_ids: [...draft.users] });

/** The set with the value in it or out of it. */
export const toggledIn = <T,>(set: ReadonlySet<T>, value: T, on: boolean): Set<T> => {
  const next = new Set(set);
  if (on) next.add(value);
  else next.delete(value);
  return next;
};

/** A list this user may read, or why it could not be read; undefined when not permitted. */
const listed = <T,>(permitted: boolean, load: () => Promise<T[]>): Promise<T[] | Error | undefined> => (permitted ? load().catch((error: Error) => error) : Promise.resolve(undefined));

/** The roles and users the deployment has (enterprise), as far as this user may list them. */
function usePeople(enterprise: boolean) {
  const can = useCan();
  const roles = enterprise && can("Roles:View");
  const users = enterprise && can("Users:View");
  return useResource(() => Promise.all([listed<Role>(roles, access.roles), listed<RbacUser>(users, access.users)]), [roles, users]);
}

/** Ticks for one kind of people, or a sentence saying why they are not listed (what is chosen is kept). */
function PeopleList<T>({ what, list, label, id, chosen, onChosen }: { what: string; list: T[] | Error | undefined; label(item: T): string; id(item: T): string | number; chosen: ReadonlySet<string | number>; onChosen(id: string | number, on: boolean): void }) {
  if (list instanceof Error) return <p class="muted small">The {what} could not be listed ({messageOf(list)}); those already chosen are kept.</p>;
  if (!list) return <p class="muted small">Your account may not list the {what}; those already chosen are kept.</p>;
  return (
    <>
      {list.map((item) => (
        <Checkbox key={id(item)} label={label(item)} checked={chosen.has(id(item))} onChecked={(on) => onChosen(id(item), on)} />
      ))}
    </>
  );
}

/** The virtual keys, roles and dashboard users that may connect; roles and users where the edition has them. */
export function AccessFields({ keys, draft, onDraft }: { keys: VirtualKey[] | undefined; draft: AccessDraft; onDraft(next: AccessDraft): void }) {
  const enterprise = useSession().me.edition === "enterprise";
  const people = usePeople(enterprise);
  const [roles, users] = people.data ?? [];
  return (
    <>
      {keys?.map((key) => (
        <Checkbox key={key.id} label={`Virtual key ${key.name}`} checked={draft.keys.has(key.id)} onChecked={(on) => onDraft({ ...draft, keys: toggledIn(draft.keys, key.id, on) })} />
      ))}
      {!enterprise && (
        <p class="muted small" role="note">
          Roles and dashboard users come with the enterprise edition: on this deployment the virtual keys decide who may connect.
        </p>
      )}
      {enterprise && people.data && (
        <>
          <PeopleList what="roles" list={roles} label={(role: Role) => `Role ${role.name}`} id={(role) => role.id} chosen={draft.roles} onChosen={(id, on) => onDraft({ ...draft, roles: toggledIn(draft.roles, id as number, on) })} />
          <PeopleList what="users" list={users} label={(user: RbacUser) => `User ${user.username}`} id={(user) => user.id} chosen={draft.users} onChosen={(id, on) => onDraft({ ...draft, users: toggledIn(draft.users, id as string, on) })} />
        </>
      )}
    </>
  );
}
