// Counters and histograms for the request path, exposed through the app's prom-client Registry
// like its own metrics (same names, types and text format). prom-client hashes the label set on
// every inc() and observe(), even on a labels() child; here a series is found through nested Maps
// keyed by the label values (no key string, no label object per call) and an observation is a
// bucket search and three additions. Label values come from bounded sets (the callers' rule).
import type { Registry } from 'prom-client'

type Labels = Record<string, string>

// As prom-client builds them: `le` is the bucket's bound as a number ('+Inf' for the last).
interface ValuePair {
  value: number
  labels: Record<string, string | number>
  sharedLabels?: Labels
  metricName?: string
  exemplar?: null
}

interface Exported {
  name: string
  help: string
  type: 'counter' | 'histogram'
  values: ValuePair[]
  aggregator: 'sum'
}

export interface MetricSpec {
  name: string
  help: string
  labelNames: readonly string[]
  registers: Registry[]
}

// A tree of Maps, one level per label (at most three), ending in the series. Label values are
// passed as arguments, not as an array: nothing is allocated once the series exists.
const MAX_LABELS = 3

class SeriesTree<S> {
  readonly #root = new Map<string, unknown>()
  readonly #all: S[] = []
  readonly #depth: number
  readonly #create: (labels: Labels) => S
  readonly #labelNames: readonly string[]

  constructor(labelNames: readonly string[], create: (labels: Labels) => S) {
    if (labelNames.length > MAX_LABELS) throw new Error(`at most ${MAX_LABELS} labels`)
    this.#depth = labelNames.length
    this.#labelNames = labelNames
    this.#create = create
  }

  get(a = '', b = '', c = ''): S {
    const depth = this.#depth
    let level = this.#root
    if (depth > 1) level = branch(level, a)
    if (depth > 2) level = branch(level, b)
    const last = depth === 3 ? c : depth === 2 ? b : a
    let series = level.get(last) as S | undefined
    if (series === undefined) level.set(last, (series = this.#add([a, b, c])))
    return series
  }

  #add(values: readonly string[]): S {
    const labels: Labels = {}
    this.#labelNames.forEach((name, i) => (labels[name] = values[i]))
    const series = this.#create(labels)
    this.#all.push(series)
    return series
  }

  get all(): readonly S[] {
    return this.#all
  }

  clear(): void {
    this.#root.clear()
    this.#all.length = 0
  }
}

function branch(level: Map<string, unknown>, value: string): Map<string, unknown> {
  let next = level.get(value) as Map<string, unknown> | undefined
  if (next === undefined) level.set(value, (next = new Map()))
  return next
}

function register(metric: { name: string }, registries: Registry[]): void {
  for (const registry of registries) registry.registerMetric(metric as never)
}

export class PathCounter {
  readonly name: string
  readonly help: string
  readonly type = 'counter'
  readonly aggregator = 'sum'
  readonly #tree: SeriesTree<{ labels: Labels; value: number }>

  constructor(spec: MetricSpec) {
    this.name = spec.name
    this.help = spec.help
    this.#tree = new SeriesTree(spec.labelNames, (labels) => ({ labels, value: 0 }))
    register(this, spec.registers)
  }

  // Label values in labelNames order.
  inc(a?: string, b?: string, c?: string): void {
    this.#tree.get(a, b, c).value++
  }

  async get(): Promise<Exported> {
    return { name: this.name, help: this.help, type: this.type, values: this.#tree.all.map((s) => ({ value: s.value, labels: s.labels })), aggregator: this.aggregator }
  }

  reset(): void {
    this.#tree.clear()
  }
}

interface HistogramSeries {
  labels: Labels
  counts: Float64Array
  sum: number
  count: number
}

export class PathHistogram {
  readonly name: string
  readonly help: string
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  readonly #bounds: readonly number[]
  readonly #tree: SeriesTree<HistogramSeries>

  constructor(spec: MetricSpec & { buckets: readonly number[] }) {
    this.name = spec.name
    this.help = spec.help
    this.#bounds = [...spec.buckets].sort((a, b) => a - b)
    this.#tree = new SeriesTree(spec.labelNames, (labels) => ({ labels, counts: new Float64Array(this.#bounds.length), sum: 0, count: 0 }))
    register(this, spec.registers)
  }

  // The value observed, then the label values in labelNames order.
  observe(seconds: number, a?: string, b?: string, c?: string): void {
    const series = this.#tree.get(a, b, c)
    const bounds = this.#bounds
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= bounds[i]) {
        series.counts[i]++
        break
      }
    }
    series.sum += seconds
    series.count++
  }

  // The text format's shape (what the Registry prints): `le` first, then the series' labels.
  async getForPromString(): Promise<Exported> {
    const values: ValuePair[] = []
    for (const series of this.#tree.all) {
      let cumulative = 0
      this.#bounds.forEach((bound, i) => {
        cumulative += series.counts[i]
        values.push({ value: cumulative, labels: { le: bound }, sharedLabels: series.labels, metricName: `${this.name}_bucket`, exemplar: null })
      })
      values.push({ value: series.count, labels: { le: '+Inf' }, sharedLabels: series.labels, metricName: `${this.name}_bucket`, exemplar: null })
      values.push({ value: series.sum, labels: {}, sharedLabels: series.labels, metricName: `${this.name}_sum` })
      values.push({ value: series.count, labels: {}, sharedLabels: series.labels, metricName: `${this.name}_count` })
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator }
  }

  // The JSON shape (getMetricsAsJSON): one label set per value.
  async get(): Promise<Exported> {
    const data = await this.getForPromString()
    data.values = data.values.map(({ sharedLabels, ...value }) => ({ ...value, labels: { ...value.labels, ...sharedLabels } }))
    return data
  }

  reset(): void {
    this.#tree.clear()
  }
}
