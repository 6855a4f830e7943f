const KEPT_LINES = 100;

/** The recent lines a plugin's status shows: loading, failures, and what the plugin itself logs. */
export class PluginLog {
  private readonly lines: string[] = [];

  constructor(private readonly name: string) {}

  add(message: string): void {
    this.lines.push(`${new Date().toISOString()} ${message}`);
    if (this.lines.length > KEPT_LINES) this.lines.shift();
  }

  /** A failure also goes to the process log, where operators look first. */
  error(message: string, error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    this.add(`${message}: ${reason}`);
    console.error(`plugin '${this.name}': ${message}:`, reason);
  }

  snapshot(): string[] {
    return [...this.lines];
  }
}
