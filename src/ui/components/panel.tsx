import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";

/** A modal side panel (a native dialog: focus is trapped, Escape closes it). */
export function Panel({ title, onClose, children, wide }: { title: string; onClose(): void; children: ComponentChildren; wide?: boolean }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return (
    <dialog ref={dialog} class={`panel${wide ? " panel-wide" : ""}`} aria-label={title} onCancel={onClose}>
      <div class="panel-header">
        <h2>{title}</h2>
        <button type="button" class="icon" aria-label="Close" onClick={onClose}>
          ✕
        </button>
      </div>
      <div class="panel-body">{children}</div>
    </dialog>
  );
}
