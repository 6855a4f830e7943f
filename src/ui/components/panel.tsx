import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { CopyButton } from "./widgets";

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

/**
 * A secret the gateway shows only as it is made (a key, a signing secret): the panel says so and
 * what the secret is for (`usage`), and offers to copy it. `noun` names it in the sentence,
 * `label` on the value.
 */
export function SecretShownOnce(props: { title: string; noun: string; label: string; secret: string; usage: string; copyLabel: string; onClose(): void }) {
  return (
    <Panel title={props.title} onClose={props.onClose}>
      <p>
        Copy the {props.noun} now: it is shown only this once. {props.usage}
      </p>
      <div class="secret">
        <code aria-label={props.label}>{props.secret}</code>
        <CopyButton text={props.secret} label={props.copyLabel} />
      </div>
      <div class="actions">
        <button type="button" class="primary" onClick={props.onClose}>
          Done
        </button>
      </div>
    </Panel>
  );
}
