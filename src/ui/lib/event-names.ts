const words = (name: string) =>
  name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/[_\-.]+/g, " ")
    .trim()
    .toLowerCase();

/** A delay's name, or its length when xstate names it by milliseconds. */
const delayOf = (delay: string) => (/^\d+$/.test(delay) ? `${Number(delay) >= 1000 ? `${Number(delay) / 1000} s` : `${delay} ms`}` : words(delay));

/**
 * A transition's event as a person reads it: xstate's generated names (the invoked actor of a
 * state finishing or failing, a delay firing) say what happened; the machines' own events read
 * as words (`PROGRESS` as "progress", `retryDue` as "retry due").
 */
export function readableEvent(event: string): string {
  const invoked = /^xstate\.(done|error)\.actor\.(.+)$/.exec(event);
  if (invoked) {
    // Generated invoke ids are `<index>.<machine>.<state path>`; a named one is its name.
    const parts = invoked[2]!.split(".");
    const what = /^\d+$/.test(parts[0]!) ? parts.slice(2).join(".") || parts[1]! : parts.join(".");
    return `work of ${words(what)} ${invoked[1] === "done" ? "finished" : "failed"}`;
  }
  const delayed = /^xstate\.after\.([^.]+)/.exec(event);
  if (delayed) return `${delayOf(delayed[1]!)} timer fired`;
  if (event === "xstate.init") return "started";
  const finalState = /^xstate\.done\.state\.(.+)$/.exec(event);
  if (finalState) return `${words(finalState[1]!.split(".").at(-1)!)} reached its end`;
  return words(event.replace(/^xstate\./, ""));
}
