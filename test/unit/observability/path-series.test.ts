// The request path's counters and histograms print exactly what prom-client's own would for the
// same observations (text and JSON), so /metrics, the dashboard and the alert rules do not change.
import t from 'tap'
import { Counter, Histogram, Registry } from 'prom-client'
import { PathCounter, PathHistogram } from '../../../src/observability/path-series.ts'

const BUCKETS = [0.001, 0.01, 0.1, 1, 60]
const OBSERVATIONS: Array<[number, string, string, string]> = [
  [0.0005, 'b1', 'echo', 'ok'],
  [0.001, 'b1', 'echo', 'ok'],
  [0.05, 'b1', 'echo', 'tool_error'],
  [2, 'b2', 'add', 'ok'],
  [75, 'b2', 'add', 'upstream_failure'],
  [0.2, 'b1', 'echo', 'ok'],
]

function registries(): { ours: Registry; theirs: Registry } {
  return { ours: new Registry(), theirs: new Registry() }
}

t.test('a three-label histogram: same text and JSON as prom-client', async (t) => {
  const { ours, theirs } = registries()
  const spec = { name: 'h_seconds', help: 'a histogram', labelNames: ['backend', 'tool', 'outcome'], buckets: BUCKETS }
  const path = new PathHistogram({ ...spec, registers: [ours] })
  const reference = new Histogram({ ...spec, registers: [theirs] })
  for (const [value, backend, tool, outcome] of OBSERVATIONS) {
    path.observe(value, backend, tool, outcome)
    reference.observe({ backend, tool, outcome }, value)
  }
  t.equal(await ours.metrics(), await theirs.metrics())
  // As JSON: prom-client leaves `exemplar: undefined` on _sum and _count.
  const json = async (registry: Registry): Promise<unknown> => JSON.parse(JSON.stringify(await registry.getMetricsAsJSON()))
  t.same(await json(ours), await json(theirs))
})

t.test('one label and no label; counters with two labels', async (t) => {
  const { ours, theirs } = registries()
  const one = new PathHistogram({ name: 'one_seconds', help: 'h', labelNames: ['method'], buckets: BUCKETS, registers: [ours] })
  const none = new PathHistogram({ name: 'none_seconds', help: 'h', labelNames: [], buckets: BUCKETS, registers: [ours] })
  const counter = new PathCounter({ name: 'c_total', help: 'c', labelNames: ['method', 'outcome'], registers: [ours] })
  const oneRef = new Histogram({ name: 'one_seconds', help: 'h', labelNames: ['method'], buckets: BUCKETS, registers: [theirs] })
  const noneRef = new Histogram({ name: 'none_seconds', help: 'h', labelNames: [], buckets: BUCKETS, registers: [theirs] })
  const counterRef = new Counter({ name: 'c_total', help: 'c', labelNames: ['method', 'outcome'], registers: [theirs] })
  for (const [value, , tool, outcome] of OBSERVATIONS) {
    one.observe(value, tool)
    oneRef.observe({ method: tool }, value)
    none.observe(value)
    noneRef.observe(value)
    counter.inc(tool, outcome)
    counterRef.inc({ method: tool, outcome })
  }
  t.equal(await ours.metrics(), await theirs.metrics())
})

t.test('reset empties every series; a series seen again starts from zero', async (t) => {
  const registry = new Registry()
  const counter = new PathCounter({ name: 'c_total', help: 'c', labelNames: ['backend'], registers: [registry] })
  counter.inc('b1')
  counter.inc('b1')
  registry.resetMetrics()
  t.same((await registry.getMetricsAsJSON())[0].values, [])
  counter.inc('b1')
  t.same((await registry.getMetricsAsJSON())[0].values, [{ value: 1, labels: { backend: 'b1' } }])
})

t.test('more than three labels is refused at creation', async (t) => {
  t.throws(() => new PathCounter({ name: 'x_total', help: 'x', labelNames: ['a', 'b', 'c', 'd'], registers: [] }), /at most 3 labels/)
})

t.test('a name already registered is refused, as prom-client refuses it', async (t) => {
  const registry = new Registry()
  new Counter({ name: 'dup_total', help: 'd', registers: [registry] })
  t.throws(() => new PathCounter({ name: 'dup_total', help: 'd', labelNames: [], registers: [registry] }), /already been registered/)
})
