/**
 * The failures of a task that runs every second or so, logged without flooding: the first of a
 * streak with its error, then nothing until the task works again, which is logged with how many
 * runs failed meanwhile. A database out of reach for a minute is two lines, not sixty.
 */
export class FailureStreak {
  private failures = 0;

  constructor(private readonly task: string) {}

  failed(error: unknown): void {
    if (this.failures++ === 0) console.error(`${this.task} failed (not logged again until it works):`, error);
  }

  succeeded(): void {
    if (this.failures > 0) console.error(`${this.task} works again, after ${this.failures} failed run${this.failures === 1 ? "" : "s"}`);
    this.failures = 0;
  }
}
