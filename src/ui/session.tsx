import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Me } from "./api/types";

export interface SessionValue {
  me: Me;
  signOut(): void;
}

export const SessionContext = createContext<SessionValue | undefined>(undefined);

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error("useSession outside the signed-in app");
  return value;
}

/** Whether the signed-in user holds a permission such as `Logs:Delete`. */
export function useCan(): (permission: string) => boolean {
  const { me } = useSession();
  return (permission) => me.local_admin || me.permissions.includes(permission);
}
