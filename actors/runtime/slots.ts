interface Waiter {
  holder: string;
  grant: () => void;
}

interface Pool {
  holders: Set<string>;
  waiters: Waiter[];
}

/**
 * Bounded concurrency per key (an endpoint, the async job workers), first come first served.
 * A holder is named, so acquiring twice is harmless: a restored actor re-acquires the slot it
 * held before the restart. The limit is read on every grant, so a changed setting applies to
 * the next grant.
 */
export class KeyedSlots {
  private readonly pools = new Map<string, Pool>();

  constructor(private readonly limitOf: (key: string) => number) {}

  acquire(key: string, holder: string, signal?: AbortSignal): Promise<void> {
    const pool = this.pool(key);
    if (pool.holders.has(holder)) return Promise.resolve();
    if (pool.waiters.length === 0 && pool.holders.size < this.limitOf(key)) {
      pool.holders.add(holder);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { holder, grant: resolve };
      pool.waiters.push(waiter);
      signal?.addEventListener(
        "abort",
        () => {
          const index = pool.waiters.indexOf(waiter);
          if (index < 0) return;
          pool.waiters.splice(index, 1);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  release(key: string, holder: string): void {
    const pool = this.pools.get(key);
    if (!pool?.holders.delete(holder)) return;
    const limit = this.limitOf(key);
    while (pool.waiters.length > 0 && pool.holders.size < limit) {
      const next = pool.waiters.shift()!;
      pool.holders.add(next.holder);
      next.grant();
    }
    if (pool.holders.size === 0 && pool.waiters.length === 0) this.pools.delete(key);
  }

  private pool(key: string): Pool {
    let pool = this.pools.get(key);
    if (!pool) this.pools.set(key, (pool = { holders: new Set(), waiters: [] }));
    return pool;
  }
}
