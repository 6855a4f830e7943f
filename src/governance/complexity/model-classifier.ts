/** Asks a chat model (through the gateway's own pipeline) and answers its reply's text. */
export type AskModel = (model: string, messages: Array<{ role: string; content: string }>, signal: AbortSignal) => Promise<string>;

/** The internal caller the classifier's calls are logged as; they are never classified themselves. */
export const CLASSIFIER_CALLER = "complexity-classifier";

/** How long a request waits for the classifier before the signals' tier is taken. */
const CLASSIFIER_TIMEOUT_MS = 5_000;
/** Characters of the prompt the classifier reads. */
const ASKED_CHARACTERS = 4_000;

function instructionFor(tiers: readonly string[]): string {
  return `Rate how much capability answering the user's message needs. Tiers, from least to most: ${tiers.join(", ")}. Answer with the tier's name only.`;
}

/**
 * The score (the middle of the tier it names) a small model gives `text`, or undefined when its
 * reply names no tier. It runs last, for a request neither the signals nor the references place.
 */
export async function scoreByModel(ask: AskModel, model: string, tiers: readonly string[], text: string): Promise<number | undefined> {
  const messages = [
    { role: "system", content: instructionFor(tiers) },
    { role: "user", content: text.slice(0, ASKED_CHARACTERS) },
  ];
  const reply = (await ask(model, messages, AbortSignal.timeout(CLASSIFIER_TIMEOUT_MS))).toLowerCase();
  // The tier named first is the answer (a small model may add a word of explanation after it).
  let found: { index: number; at: number } | undefined;
  tiers.forEach((tier, index) => {
    const at = reply.indexOf(tier.toLowerCase());
    if (at >= 0 && (!found || at < found.at)) found = { index, at };
  });
  return found && (found.index + 0.5) / tiers.length;
}
