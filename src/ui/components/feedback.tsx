import { type ComponentChildren, createContext } from "preact";
import { useCallback, useContext, useEffect, useRef, useState } from "preact/hooks";

type ToastKind = "success" | "error" | "info";
interface Toast {
  id: number;
  kind: ToastKind;
  text: string;
}

interface Confirmation {
  title: string;
  body: ComponentChildren;
  confirmLabel: string;
  resolve(confirmed: boolean): void;
}

interface Feedback {
  toast(text: string, kind?: ToastKind): void;
  /** Asks before something that cannot be undone; resolves true when confirmed. */
  confirm(title: string, body: ComponentChildren, confirmLabel?: string): Promise<boolean>;
}

const FeedbackContext = createContext<Feedback>({ toast: () => {}, confirm: async () => false });

export const useFeedback = () => useContext(FeedbackContext);

const TOAST_MS = 5000;
let nextToast = 0;

function ConfirmDialog({ confirmation, close }: { confirmation: Confirmation; close(confirmed: boolean): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return (
    <dialog ref={dialog} class="dialog" aria-labelledby="confirm-title" onCancel={() => close(false)}>
      <h2 id="confirm-title">{confirmation.title}</h2>
      <div class="dialog-body">{confirmation.body}</div>
      <div class="actions">
        <button type="button" onClick={() => close(false)}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={() => close(true)}>
          {confirmation.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** Toasts for results and confirmation dialogs, for every page. */
export function FeedbackProvider({ children }: { children: ComponentChildren }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const [confirmation, setConfirmation] = useState<Confirmation>();
  const toast = useCallback((text: string, kind: ToastKind = "success") => {
    const id = ++nextToast;
    setToasts((current) => [...current, { id, kind, text }]);
    setTimeout(() => setToasts((current) => current.filter((entry) => entry.id !== id)), TOAST_MS);
  }, []);
  const confirm = useCallback(
    (title: string, body: ComponentChildren, confirmLabel = "Delete") => new Promise<boolean>((resolve) => setConfirmation({ title, body, confirmLabel, resolve })),
    [],
  );
  const close = (confirmed: boolean) => {
    confirmation?.resolve(confirmed);
    setConfirmation(undefined);
  };
  return (
    <FeedbackContext.Provider value={{ toast, confirm }}>
      {children}
      {confirmation && <ConfirmDialog confirmation={confirmation} close={close} />}
      <div class="toasts" role="status" aria-live="polite">
        {toasts.map((entry) => (
          <div key={entry.id} class={`toast toast-${entry.kind}`}>
            {entry.text}
          </div>
        ))}
      </div>
    </FeedbackContext.Provider>
  );
}
