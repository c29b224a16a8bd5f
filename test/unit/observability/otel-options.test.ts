// OpenTelemetry (README "Tracing"): which signals the standard variables turn on, the export
// protocol and schedules they set, how an outcome becomes error.type, and the parent context the
// span code hands the SDK. Table-driven; pure functions and the OpenTelemetry API only.
import t from 'tap'
import { ROOT_CONTEXT, createContextKey, trace } from '@opentelemetry/api'
import { readerOptionsFrom } from '../../../src/observability/otel-metrics.ts'
import { outcomeOf, failureType } from '../../../src/observability/otel-semconv.ts'
import { ParentContext, queueOptionsFrom } from '../../../src/observability/otel-tracing.ts'
import { isOtelEnabled, isOtelMetricsEnabled, otlpProtocol } from '../../../src/observability/tracing.ts'

const ENDPOINT = 'http://127.0.0.1:4318'

t.test('which signals are on', async (t) => {
  const cases: Array<[string, Record<string, string>, boolean, boolean]> = [
    ['nothing set → both off', {}, false, false],
    ['the common endpoint → both on', { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT }, true, true],
    ['a traces endpoint only → spans only', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: ENDPOINT }, true, false],
    ['a metrics endpoint only → metrics only', { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: ENDPOINT }, false, true],
    ['OTEL_METRICS_EXPORTER=none → spans only', { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_METRICS_EXPORTER: 'none' }, true, false],
    ['OTEL_TRACES_EXPORTER=none → metrics only', { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }, false, true],
    ['OTEL_SDK_DISABLED=TRUE → both off', { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'TRUE' }, false, false],
    ['an empty endpoint → both off', { OTEL_EXPORTER_OTLP_ENDPOINT: '' }, false, false],
  ]
  for (const [name, env, spans, metrics] of cases) t.same([isOtelEnabled(env), isOtelMetricsEnabled(env)], [spans, metrics], name)
})

t.test('export protocol and schedules', async (t) => {
  t.equal(otlpProtocol({}, 'TRACES'), 'http/protobuf', 'protobuf by default (the specification\'s)')
  t.equal(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, 'METRICS'), 'http/json')
  t.equal(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }, 'TRACES'), 'http/protobuf', 'the signal\'s own wins')
  t.equal(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'TRACES'), 'http/protobuf', 'grpc is not offered')
  t.same(readerOptionsFrom({}), { exportIntervalMillis: 60_000, exportTimeoutMillis: 30_000 })
  t.same(readerOptionsFrom({ OTEL_METRIC_EXPORT_INTERVAL: '100' }), { exportIntervalMillis: 100, exportTimeoutMillis: 100 }, 'the timeout never passes the interval')
  t.same(readerOptionsFrom({ OTEL_METRIC_EXPORT_INTERVAL: '-5', OTEL_METRIC_EXPORT_TIMEOUT: 'soon' }), { exportIntervalMillis: 60_000, exportTimeoutMillis: 30_000 }, 'invalid values ignored')
  t.same(queueOptionsFrom({ OTEL_BSP_MAX_QUEUE_SIZE: '100' }), { maxQueueSize: 100, maxExportBatchSize: 100 }, 'a batch never passes the queue')
})

t.test('outcome → error.type', async (t) => {
  const spliced = { ok: true, toolError: true, get result(): never { throw new Error('stamped result built') } }
  const cases: Array<[string, unknown, unknown]> = [
    ['a result → none', { ok: true, result: {} }, {}],
    ['a JSON-RPC error → its code', { ok: false, error: { code: -32602 } }, { errorType: '-32602', statusCode: '-32602' }],
    ['isError → tool_error', { ok: true, result: { isError: true } }, { errorType: 'tool_error' }],
    ['a spliced reply → its toolError, the stamped result not built', spliced, { errorType: 'tool_error' }],
    ['an upstream round → its reply', { kind: 'reply', reply: { ok: false, error: { code: -32603 } } }, { errorType: '-32603', statusCode: '-32603' }],
    ['an input round → none', { kind: 'input', inputRequests: {} }, {}],
  ]
  for (const [name, outcome, expected] of cases) t.same(outcomeOf(outcome), expected, name)
  t.equal(failureType(Object.assign(new Error('x'), { reason: 'timeout' })), 'timeout', 'a failure: its reason')
  t.equal(failureType(new TypeError('x')), 'TypeError', 'else the error\'s name')
})

t.test('ParentContext → the SDK finds the parent span', async (t) => {
  const span = trace.wrapSpanContext({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1 })
  const context = new ParentContext(span)
  t.equal(trace.getSpan(context), span)
  const other = createContextKey('other')
  const extended = context.setValue(other, 1)
  t.equal(trace.getSpan(extended), span, 'setValue keeps the span')
  t.equal(extended.getValue(other), 1)
  t.equal(trace.getSpan(trace.deleteSpan(context)), undefined, 'deleteSpan removes it')
  t.equal(trace.getSpan(ROOT_CONTEXT), undefined)
})
