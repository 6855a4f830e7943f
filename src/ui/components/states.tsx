import type { ComponentChildren } from "preact";
import { ApiError } from "../api/client";

export const Loading = ({ what = "Loading" }: { what?: string }) => (
  <div class="state" role="status">
    <span class="spinner" aria-hidden="true" /> {what}…
  </div>
);

/** A failed load; a 403 says plainly that the permission is missing, not that something broke. */
export function ErrorState({ error, retry }: { error: Error; retry?: () => void }) {
  if (error instanceof ApiError && error.forbidden) {
    return (
      <div class="state state-forbidden" role="alert">
        <h2>No access</h2>
        <p>Your role does not allow this: {error.message}. Ask an administrator for the permission.</p>
      </div>
    );
  }
  return (
    <div class="state state-error" role="alert">
      <h2>Could not load</h2>
      <p>{error.message}</p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export const Empty = ({ title, children }: { title: string; children?: ComponentChildren }) => (
  <div class="state state-empty">
    <h2>{title}</h2>
    {children}
  </div>
);

/** What a user without the permission sees in place of a whole page. */
export const Forbidden = ({ permission }: { permission: string }) => (
  <div class="state state-forbidden" role="alert">
    <h2>No access</h2>
    <p>This page needs the permission {permission}, which your role does not have.</p>
  </div>
);
