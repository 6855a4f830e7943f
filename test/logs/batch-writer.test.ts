import { describe, expect, test } from "bun:test";
import { BatchWriter } from "../../src/logs/batch-writer";

/** An insert that records every batch and tells the test when one arrives. */
function recordingInsert() {
  const batches: number[][] = [];
  let waiting: (() => void) | undefined;
  return {
    batches,
    nextBatch: () => new Promise<void>((resolve) => (waiting = resolve)),
    insert: async (rows: number[]) => {
      batches.push(rows);
      waiting?.();
    },
  };
}

describe("the batched writer", () => {
  test("a full batch is written at once, without waiting for the interval", async () => {
    const sink = recordingInsert();
    const writer = new BatchWriter(sink.insert, { capacity: 100, batchSize: 4, flushIntervalMs: 3_600_000 });
    const written = sink.nextBatch();
    for (const row of [1, 2, 3, 4]) writer.enqueue(row);
    await written;
    expect(sink.batches).toEqual([[1, 2, 3, 4]]);
  });

  test("a partial batch is written when the interval since its first row ends", async () => {
    const sink = recordingInsert();
    const writer = new BatchWriter(sink.insert, { capacity: 100, batchSize: 50, flushIntervalMs: 5 });
    const written = sink.nextBatch();
    writer.enqueue(1);
    writer.enqueue(2);
    expect(sink.batches).toEqual([]);
    await written;
    expect(sink.batches).toEqual([[1, 2]]);
    expect(writer.status().depth).toBe(0);
  });

  test("rows beyond capacity are dropped and counted; flush writes the rest in batches", async () => {
    const sink = recordingInsert();
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const slowWriter = new BatchWriter(
      async (rows: number[]) => {
        await blocked;
        await sink.insert(rows);
      },
      { capacity: 5, batchSize: 2, flushIntervalMs: 3_600_000 },
    );
    const accepted = Array.from({ length: 9 }, (_, row) => slowWriter.enqueue(row));
    // The first two rows are being written; five more fill the queue; two are dropped.
    expect(accepted).toEqual([true, true, true, true, true, true, true, false, false]);
    expect(slowWriter.status()).toEqual({ depth: 5, bytes: 0, capacity: 5, dropped: 2, failed: 0, retries: 0 });
    release();
    await slowWriter.flush();
    expect(sink.batches).toEqual([[0, 1], [2, 3], [4, 5], [6]]);
    expect(slowWriter.status()).toEqual({ depth: 0, bytes: 0, capacity: 5, dropped: 2, failed: 0, retries: 0 });
  });

  test("large rows are bounded by bytes: beyond the byte capacity they are dropped, and a batch takes at most its bytes", async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    // A row is its own size in bytes.
    const writer = new BatchWriter(
      async (rows: number[]) => {
        await blocked;
        batches.push(rows);
      },
      { capacity: 1_000, capacityBytes: 100, sizeOf: (row) => row, batchSize: 1_000, maxBatchBytes: 60, flushIntervalMs: 3_600_000 },
    );
    // 40 and 30 make a batch's worth (60 bytes): 40 goes to the insert, 30 waits. 50 joins it;
    // a second 40 would pass 100 bytes queued.
    expect([40, 30, 50, 40].map((row) => writer.enqueue(row))).toEqual([true, true, true, false]);
    expect(writer.status()).toMatchObject({ depth: 2, bytes: 80, dropped: 1 });
    // A row larger than the byte capacity is taken only into an empty queue, as a batch of its own.
    expect(writer.enqueue(500)).toBe(false);
    release();
    await writer.flush();
    expect(writer.enqueue(500)).toBe(true);
    await writer.flush();
    expect(batches).toEqual([[40], [30], [50], [500]]);
    expect(writer.status()).toMatchObject({ depth: 0, bytes: 0, dropped: 2 });
  });

  test("rows that pile up while an insert runs go out together, up to the largest batch", async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const writer = new BatchWriter(
      async (rows: number[]) => {
        batches.push(rows);
        await blocked;
      },
      { capacity: 100, batchSize: 2, maxBatchSize: 5, flushIntervalMs: 3_600_000 },
    );
    for (let row = 0; row < 10; row++) writer.enqueue(row);
    release();
    await writer.flush();
    expect(batches).toEqual([[0, 1], [2, 3, 4, 5, 6], [7, 8, 9]]);
  });

  test("a remainder smaller than a batch waits for the interval instead of a commit of its own", async () => {
    const sink = recordingInsert();
    let lastInsert: Promise<void> | undefined;
    const insert = (rows: number[]) => (lastInsert = sink.insert(rows));
    const writer = new BatchWriter(insert, { capacity: 100, batchSize: 2, flushIntervalMs: 3_600_000 });
    for (const row of [1, 2, 3]) writer.enqueue(row);
    // Reactions to one promise run in order: the writer has decided what comes next when this resumes.
    await lastInsert;
    expect(sink.batches).toEqual([[1, 2]]);
    expect(writer.status().depth).toBe(1);
    await writer.flush();
    expect(sink.batches).toEqual([[1, 2], [3]]);
  });

  test("a batch the database does not take for a while is tried again and written, in order, with the rows that queued behind it", async () => {
    const written: number[][] = [];
    let refusals = 2;
    const writer = new BatchWriter(
      async (rows: number[]) => {
        if (refusals-- > 0) throw new Error("SqliteError: database is locked");
        written.push(rows);
      },
      { capacity: 10, batchSize: 2, flushIntervalMs: 3_600_000, retryDelaysMs: [1, 1, 1] },
    );
    for (const row of [1, 2, 3, 4, 5]) writer.enqueue(row);
    await writer.flush();
    expect(written).toEqual([[1, 2], [3, 4], [5]]);
    expect(writer.status()).toMatchObject({ failed: 0, dropped: 0, depth: 0, retries: 2 });
  });

  test("a row the table refuses costs only itself: its batch is split until the row stands alone", async () => {
    const attempts: number[][] = [];
    const written: number[] = [];
    const writer = new BatchWriter(
      async (rows: number[]) => {
        attempts.push(rows);
        if (rows.includes(6)) throw new Error("SqliteError: UNIQUE constraint failed: request_logs.id");
        written.push(...rows);
      },
      { capacity: 10, batchSize: 8, flushIntervalMs: 3_600_000, retryDelaysMs: [3_600_000], refusesRows: (error) => String(error).includes("constraint") },
    );
    for (let row = 1; row <= 8; row++) writer.enqueue(row);
    await writer.flush();
    expect(written.toSorted()).toEqual([1, 2, 3, 4, 5, 7, 8]);
    // Halving isolates the row in log2(8) steps, and a refusal is never waited on.
    expect(attempts).toEqual([[1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4], [5, 6, 7, 8], [5, 6], [5], [6], [7, 8]]);
    expect(writer.status()).toMatchObject({ failed: 1, dropped: 0, depth: 0 });
  });

  test("a database out for longer than the retry schedule loses nothing: the batch keeps being tried and rows queue behind it", async () => {
    const written: number[][] = [];
    let tries = 0;
    const writer = new BatchWriter(
      async (rows: number[]) => {
        if (rows.includes(1) && ++tries < 6) throw new Error("ConnectionRefused: Unable to connect");
        written.push(rows);
      },
      { capacity: 10, batchSize: 2, flushIntervalMs: 3_600_000, retryDelaysMs: [1, 1] },
    );
    for (const row of [1, 2, 3]) writer.enqueue(row);
    await writer.flush();
    expect(tries).toBe(6);
    expect(written).toEqual([[1, 2], [3]]);
    expect(writer.status()).toMatchObject({ failed: 0, dropped: 0, depth: 0, retries: 5 });
  });

  test("stopping while the database is out waits the grace period, then counts the batch under way and the rows behind it as failed", async () => {
    const attempts: number[][] = [];
    const firstFailure = Promise.withResolvers<void>();
    const writer = new BatchWriter(
      async (rows: number[]) => {
        attempts.push(rows);
        firstFailure.resolve();
        throw new Error("ConnectionRefused: Unable to connect");
      },
      { capacity: 10, batchSize: 2, flushIntervalMs: 3_600_000, retryDelaysMs: [3_600_000] },
    );
    for (const row of [1, 2, 3]) writer.enqueue(row);
    await firstFailure.promise;
    await writer.stop(10);
    // The hour-long wait is cut short by the stop: one last attempt each, nothing waited on after.
    expect(attempts).toEqual([[1, 2], [1, 2], [3]]);
    expect(writer.status()).toMatchObject({ failed: 3, dropped: 0, depth: 0 });
  });
});
