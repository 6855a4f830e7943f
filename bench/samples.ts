/** Latency samples in microseconds, kept whole so percentiles are exact (a few hundred thousand at most). */
export class SampleLog {
  private values = new Float64Array(1 << 16);
  size = 0;

  add(value: number): void {
    if (this.size === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.size++] = value;
  }

  sorted(): Float64Array {
    return this.values.slice(0, this.size).sort();
  }
}

export interface Summary {
  p50: number;
  p99: number;
  p999: number;
  mean: number;
}

/** Nearest-rank percentiles and the mean; NaN when there are no samples. */
export function summarize(samples: SampleLog): Summary {
  const sorted = samples.sorted();
  if (sorted.length === 0) return { p50: Number.NaN, p99: Number.NaN, p999: Number.NaN, mean: Number.NaN };
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  return { p50: rank(0.5), p99: rank(0.99), p999: rank(0.999), mean };
}
