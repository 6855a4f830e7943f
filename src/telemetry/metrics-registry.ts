/**
 * Counters, gauges and histograms with labels, rendered in the Prometheus text exposition
 * format (version 0.0.4). Small on purpose: it is all /metrics needs.
 */

export type Labels<L extends string> = Readonly<Record<L, string>>;

export interface Sample<L extends string> {
  labels: Labels<L>;
  value: number;
}

interface MetricOptions<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
}

/** For values owned elsewhere (a queue's depth, actors by state): read at every scrape. */
interface CollectedOptions<L extends string> extends MetricOptions<L> {
  collect?: () => Array<Sample<L>> | Promise<Array<Sample<L>>>;
}

interface HistogramOptions<L extends string> extends MetricOptions<L> {
  /** Upper bounds, ascending; +Inf is added. */
  buckets: readonly number[];
}

interface Metric {
  readonly name: string;
  render(): string[] | Promise<string[]>;
}

const escapeLabel = (value: string) => value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
const escapeHelp = (value: string) => value.replaceAll("\\", "\\\\").replaceAll("\n", "\\n");

function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "+Inf" : "-Inf";
  return String(value);
}

function formatLabels(pairs: ReadonlyArray<readonly [string, string]>): string {
  return pairs.length === 0 ? "" : `{${pairs.map(([name, value]) => `${name}="${escapeLabel(value)}"`).join(",")}}`;
}

const header = (name: string, help: string, type: string) => [`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`];

interface SampleEntry<L extends string, V> {
  pairs: Array<[L, string]>;
  value: V;
}

/** A level of the lookup tree: one label's values, leading to the next label's level or, at the last label, to a sample. */
type LabelLevel<L extends string, V> = Map<string, LabelLevel<L, V> | SampleEntry<L, V>>;

/**
 * Samples keyed by their label values in declaration order, in a tree of maps with one level
 * per label: looking a sample up on the hot path (every request) allocates nothing.
 */
/** Label values in the order the labels were declared. */
type LabelValues = [v0?: string, v1?: string, v2?: string, v3?: string];

class SampleSet<L extends string, V> {
  private readonly root: LabelLevel<L, V> = new Map();
  private readonly entries: Array<SampleEntry<L, V>> = [];
  private unlabelled: SampleEntry<L, V> | undefined;

  constructor(private readonly labelNames: readonly L[]) {
    if (labelNames.length > 4) throw new Error(`a metric has at most four labels, not ${labelNames.length}`);
  }

  upsert(labels: Labels<L>, create: () => V): V {
    const names = this.labelNames;
    return this.upsertValues(create, labels[names[0]!], labels[names[1]!], labels[names[2]!], labels[names[3]!]);
  }

  /**
   * The sample of label values given in the order the labels were declared (at most four): the
   * request path names a series this way, with no label object built for each call.
   */
  upsertValues(create: () => V, ...values: LabelValues): V;
  upsertValues(create: () => V, v0?: string, v1?: string, v2?: string, v3?: string): V {
    const names = this.labelNames;
    if (names.length === 0) return (this.unlabelled ??= this.added([], create)).value;
    let level = this.root;
    for (let index = 0; index < names.length - 1; index++) {
      const value = (index === 0 ? v0 : index === 1 ? v1 : v2) ?? "";
      let next = level.get(value) as LabelLevel<L, V> | undefined;
      if (!next) level.set(value, (next = new Map()));
      level = next;
    }
    const lastIndex = names.length - 1;
    const last = (lastIndex === 0 ? v0 : lastIndex === 1 ? v1 : lastIndex === 2 ? v2 : v3) ?? "";
    let entry = level.get(last) as SampleEntry<L, V> | undefined;
    if (!entry) level.set(last, (entry = this.added([v0, v1, v2, v3], create)));
    return entry.value;
  }

  pairsOf(labels: Labels<L>): Array<[L, string]> {
    return this.labelNames.map((name) => [name, labels[name] ?? ""]);
  }

  all(): ReadonlyArray<SampleEntry<L, V>> {
    return this.entries;
  }

  private added(values: ReadonlyArray<string | undefined>, create: () => V): SampleEntry<L, V> {
    const entry = { pairs: this.labelNames.map((name, index): [L, string] => [name, values[index] ?? ""]), value: create() };
    this.entries.push(entry);
    return entry;
  }
}

class ValueMetric<L extends string> implements Metric {
  protected readonly samples: SampleSet<L, { value: number }>;

  constructor(
    private readonly type: "counter" | "gauge",
    protected readonly options: CollectedOptions<L>,
  ) {
    this.samples = new SampleSet(options.labelNames ?? []);
  }

  get name() {
    return this.options.name;
  }

  async render(): Promise<string[]> {
    const stored = this.samples.all().map(({ pairs, value }) => ({ pairs, value: value.value }));
    const collected = (await this.collect()).map(({ labels, value }) => ({ pairs: this.samples.pairsOf(labels), value }));
    const lines = [...stored, ...collected].map(({ pairs, value }) => `${this.options.name}${formatLabels(pairs)} ${formatValue(value)}`);
    return [...header(this.options.name, this.options.help, this.type), ...lines];
  }

  /** A collector that fails loses its samples for this scrape, not the whole page. */
  private async collect(): Promise<Array<Sample<L>>> {
    try {
      return (await this.options.collect?.()) ?? [];
    } catch (error) {
      console.error(`metrics: collecting ${this.name} failed:`, (error as Error).message);
      return [];
    }
  }
}

/** A sample's first value; one function for every call, so counting on the hot path allocates no closure. */
const newValue = () => ({ value: 0 });

export class Counter<L extends string = never> extends ValueMetric<L> {
  constructor(options: CollectedOptions<L>) {
    super("counter", options);
  }

  inc(labels: Labels<L>, by = 1): void {
    if (by < 0) throw new Error(`counter ${this.name} cannot decrease`);
    this.samples.upsert(labels, newValue).value += by;
  }

  /** `inc` of the series named by its label values in declaration order: nothing built a call. */
  incValues(by: number, ...values: LabelValues): void;
  incValues(by: number, v0?: string, v1?: string, v2?: string, v3?: string): void {
    if (by < 0) throw new Error(`counter ${this.name} cannot decrease`);
    this.samples.upsertValues(newValue, v0, v1, v2, v3).value += by;
  }
}

export class Gauge<L extends string = never> extends ValueMetric<L> {
  constructor(options: CollectedOptions<L>) {
    super("gauge", options);
  }

  set(labels: Labels<L>, value: number): void {
    this.samples.upsert(labels, newValue).value = value;
  }
}

interface HistogramState {
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram<L extends string = never> implements Metric {
  private readonly samples: SampleSet<L, HistogramState>;

  constructor(private readonly options: HistogramOptions<L>) {
    this.samples = new SampleSet(options.labelNames ?? []);
  }

  get name() {
    return this.options.name;
  }

  private readonly newState = (): HistogramState => ({ counts: this.options.buckets.map(() => 0), sum: 0, count: 0 });

  observe(labels: Labels<L>, value: number): void {
    this.observed(this.samples.upsert(labels, this.newState), value);
  }

  /** `observe` of the series named by its label values in declaration order: nothing built a call. */
  observeValues(value: number, ...values: LabelValues): void;
  observeValues(value: number, v0?: string, v1?: string, v2?: string, v3?: string): void {
    this.observed(this.samples.upsertValues(this.newState, v0, v1, v2, v3), value);
  }

  private observed(state: HistogramState, value: number): void {
    const { buckets } = this.options;
    for (let index = 0; index < buckets.length; index++) if (value <= buckets[index]!) state.counts[index]!++;
    state.sum += value;
    state.count++;
  }

  render(): string[] {
    const { name, help, buckets } = this.options;
    const lines = header(name, help, "histogram");
    for (const { pairs, value } of this.samples.all()) {
      for (const [index, bound] of buckets.entries()) lines.push(`${name}_bucket${formatLabels([...pairs, ["le", formatValue(bound)]])} ${value.counts[index]}`);
      lines.push(`${name}_bucket${formatLabels([...pairs, ["le", "+Inf"]])} ${value.count}`);
      lines.push(`${name}_sum${formatLabels(pairs)} ${formatValue(value.sum)}`, `${name}_count${formatLabels(pairs)} ${value.count}`);
    }
    return lines;
  }
}

/**
 * The gateway's metrics. Areas register theirs once at start (`registry.counter({...})`) and
 * keep the handle; a name can be registered only once.
 */
export class MetricsRegistry {
  private readonly metrics = new Map<string, Metric>();

  counter<L extends string = never>(options: CollectedOptions<L>): Counter<L> {
    return this.register(new Counter(options));
  }

  gauge<L extends string = never>(options: CollectedOptions<L>): Gauge<L> {
    return this.register(new Gauge(options));
  }

  histogram<L extends string = never>(options: HistogramOptions<L>): Histogram<L> {
    return this.register(new Histogram(options));
  }

  async render(): Promise<string> {
    const rendered = await Promise.all([...this.metrics.values()].map((metric) => metric.render()));
    return `${rendered.flat().join("\n")}\n`;
  }

  private register<M extends Metric>(metric: M): M {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(metric.name)) throw new Error(`invalid metric name '${metric.name}'`);
    if (this.metrics.has(metric.name)) throw new Error(`metric '${metric.name}' is already registered`);
    this.metrics.set(metric.name, metric);
    return metric;
  }
}
