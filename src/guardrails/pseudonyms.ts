/**
 * The placeholders of one request: the same value gets the same placeholder wherever it appears
 * (`[EMAIL_1]` twice for one address), each type numbered from 1. Placeholders given to the
 * input can be put back in the reply; those given to the reply are never undone.
 */
export class Pseudonyms {
  private readonly byValue = new Map<string, string>();
  private readonly counts = new Map<string, number>();
  /** Placeholder to value, for the input's only. */
  private readonly restorable = new Map<string, string>();

  placeholderFor(label: string, value: string, restorable: boolean): string {
    const key = `${label}\u0000${value}`;
    let placeholder = this.byValue.get(key);
    if (!placeholder) {
      const count = (this.counts.get(label) ?? 0) + 1;
      this.counts.set(label, count);
      placeholder = `[${label}_${count}]`;
      this.byValue.set(key, placeholder);
    }
    if (restorable) this.restorable.set(placeholder, value);
    return placeholder;
  }

  get hasRestorable(): boolean {
    return this.restorable.size > 0;
  }

  valueOf(placeholder: string): string | undefined {
    return this.restorable.get(placeholder);
  }
}

/** A placeholder as the gateway writes them. */
export const PLACEHOLDER = /\[[A-Z][A-Z0-9_]{0,31}_\d{1,6}\]/g;
/** The longest placeholder: what a stream holds back for one that may be split. */
export const PLACEHOLDER_MAX_LENGTH = 42;
