import { appendFileSync, closeSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { FailureStreak } from "../db/failure-streak";

/** Rows a segment file takes before the next one starts: a segment goes once all of its rows are settled. */
const ROWS_PER_SEGMENT = 4096;
/** Rows the table refused for good, beside the segments; no segment name matches it, so no start recovers it. */
export const QUARANTINE_FILE = "quarantine.jsonl";
const SEGMENT = /^(\d+\.\d+)-[0-9a-f]+-\d+\.jsonl(?:\.claimed-(\d+\.\d+))?$/;

export interface RecoveredSegment {
  header: unknown;
  rows: unknown[];
}

interface Segment {
  path: string;
  /** Open from the segment's first write until it is full or goes. */
  fd: number | undefined;
  rows: number;
  /** How many rows were appended up to this segment's last: all of its rows are settled once that many are. */
  end: number;
}

/** A line's JSON value; undefined for an empty line or the one a kill cut short (that row is lost). */
function parsedLine(line: string): unknown {
  if (!line) return undefined;
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** When a process started, from /proc (Linux): with its pid, it names the process even where pids are reused (a container's pid 1). */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/** This process, as segment names say which process wrote or claimed them: `<pid>.<start time>`. */
const THIS_PROCESS = `${process.pid}.${startTimeOf(process.pid) ?? "0"}`;

/** Whether the process a segment name gives still runs (one we may not signal counts as running). */
function processRuns(identity: string): boolean {
  if (identity === THIS_PROCESS) return true;
  const [pid, startTime] = identity.split(".");
  const started = startTimeOf(Number(pid));
  if (started !== undefined) return started === startTime;
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Rows waiting in memory for the log table, also appended to files beside the database, so a
 * process killed outright (SIGKILL, a crash) leaves them for the next start. Each row is written
 * as it is appended (one write(2), no fsync): a reply's row is in the file before the reply's
 * last byte leaves, and outlives the process, not the machine. One write a row costs no more CPU
 * than writing the rows of 10 ms together did (5–7 µs against 6–10 µs, bench/journal-durability.ts). A segment file is deleted once each of its rows is settled (stored,
 * or refused by the table); the segments of processes that no longer run are what `recover`
 * hands back.
 */
export class CrashJournal {
  private readonly instance = crypto.randomUUID().slice(0, 8);
  /** Rows this process set aside in the quarantine file. */
  quarantined = 0;
  /** Segments with unsettled rows, oldest first; the last one is appended to. */
  private readonly segments: Segment[] = [];
  private appended = 0;
  private settledRows = 0;
  /** Set once rows were given up on: from then on every segment stays for the next start. */
  private keepAll = false;
  private sequence = 0;
  /** Lines appended to the last segment and not written yet. */
  private pending = "";
  // A journal that cannot be written (a full disk) loses only its own guarantee: the rows still queue.
  private readonly outage = new FailureStreak("request log: writing the crash journal");

  /** `header` opens every segment file: what a later start needs to read its rows (their columns, say). */
  constructor(
    private readonly dir: string,
    private readonly header: unknown,
  ) {
    try {
      mkdirSync(dir, { recursive: true });
    } catch (error) {
      this.outage.failed(error);
    }
  }

  /**
   * `line`: a row's JSON text, one line, written before this returns; with `later`, held until
   * `writePending()` (rows queued in bulk, the journal of a killed process taken up again).
   */
  append(line: string, later = false): void {
    const segment = this.openSegment();
    segment.rows++;
    segment.end = ++this.appended;
    this.pending += `${line}\n`;
    if (!later) this.writePending();
  }

  /** Writes the rows held by `append(line, true)`. */
  writePending(): void {
    const segment = this.segments.at(-1);
    if (this.pending === "" || !segment) return;
    const text = this.pending;
    this.pending = "";
    this.write(segment, text);
  }

  /**
   * The next `count` rows, in the order they were appended, are stored or refused by the table.
   * (The queue settles its rows in order.) A segment whose rows all are goes.
   */
  settled(count: number): void {
    this.settledRows += count;
    if (this.keepAll) return;
    while (this.segments[0] && this.segments[0].end <= this.settledRows) {
      const segment = this.segments.shift()!;
      this.closeFile(segment);
      try {
        unlinkSync(segment.path);
      } catch (error) {
        // Never written (its writes failed): nothing to remove.
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") this.outage.failed(error);
      }
    }
  }

  /**
   * Sets aside a row the table refused for good (`line`, its JSON text) in QUARANTINE_FILE, one
   * line a row with the error and the segments' header (what reads it): kept for an operator to
   * read or replay, never retried.
   */
  quarantine(line: string, error: unknown): void {
    const record = `{"quarantined_at":${JSON.stringify(new Date().toISOString())},"error":${JSON.stringify(String(error))},"header":${JSON.stringify(this.header)},"row":${line}}\n`;
    try {
      appendFileSync(join(this.dir, QUARANTINE_FILE), record);
      this.quarantined++;
    } catch (error) {
      this.outage.failed(error);
    }
  }

  /** Rows the queue gave up on (a stop while the database was out of reach): they, and all rows after them, wait for the next start. */
  givenUp(): void {
    this.keepAll = true;
  }

  /** Closes the files; the segments with unsettled rows stay for the next start. */
  close(): void {
    this.writePending();
    for (const segment of this.segments) this.closeFile(segment);
  }

  /**
   * The segments that processes no longer running left in this journal's folder, oldest first,
   * each with its header and its rows in the order they were appended. Their files are claimed by
   * renaming them (so two nodes starting on one file never take the same one); `release()`
   * deletes them once their rows are queued again.
   */
  recover(): { segments: RecoveredSegment[]; release(): void } {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return { segments: [], release() {} };
    }
    const claimed: string[] = [];
    for (const name of names.sort()) {
      const match = SEGMENT.exec(name);
      if (!match || processRuns(match[2] ?? match[1]!)) continue;
      const path = join(this.dir, `${name.replace(/\.claimed-.*$/, "")}.claimed-${THIS_PROCESS}`);
      try {
        renameSync(join(this.dir, name), path);
        claimed.push(path);
      } catch {
        // Another node claimed it first.
      }
    }
    const segments: RecoveredSegment[] = [];
    for (const path of claimed) {
      const [first = "", ...lines] = readFileSync(path, "utf8").split("\n");
      const header = parsedLine(first);
      if (header !== undefined) segments.push({ header, rows: lines.map(parsedLine).filter((row) => row !== undefined) });
    }
    return { segments, release: () => claimed.forEach((path) => unlinkSync(path)) };
  }

  private openSegment(): Segment {
    const last = this.segments.at(-1);
    if (last && last.rows < ROWS_PER_SEGMENT) return last;
    if (last) {
      this.writePending();
      this.closeFile(last);
    }
    const path = join(this.dir, `${THIS_PROCESS}-${this.instance}-${String(this.sequence++).padStart(8, "0")}.jsonl`);
    const segment: Segment = { path, fd: undefined, rows: 0, end: this.appended };
    this.segments.push(segment);
    return segment;
  }

  private closeFile(segment: Segment): void {
    if (segment.fd === undefined) return;
    closeSync(segment.fd);
    segment.fd = undefined;
  }

  private write(segment: Segment, text: string): void {
    try {
      if (segment.fd === undefined) {
        segment.fd = openSync(segment.path, "a");
        text = `${JSON.stringify(this.header)}\n${text}`;
      }
      writeSync(segment.fd, text);
      this.outage.succeeded();
    } catch (error) {
      this.outage.failed(error);
    }
  }
}
