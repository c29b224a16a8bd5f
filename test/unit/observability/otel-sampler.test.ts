// OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG as the OpenTelemetry environment spec names them;
// anything else is the default with a reason. Checked by what each sampler decides.
import t from 'tap'
import { ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api'
import { SamplingDecision } from '@opentelemetry/sdk-trace'
import { samplerFrom } from '../../../src/observability/otel-sampler.ts'

const LOW_TRACE = '00000000000000000000000000000001'
// The ratio sampler XORs the id's four 32-bit words: 1 is below any positive bound, ffffffff above half.
const HIGH_TRACE = 'ffffffff000000000000000000000000'

function decide(env: Record<string, string>, traceId: string, parentSampled?: boolean): SamplingDecision {
  const parent = parentSampled === undefined
    ? ROOT_CONTEXT
    : trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: '00f067aa0ba902b7', traceFlags: parentSampled ? TraceFlags.SAMPLED : TraceFlags.NONE, isRemote: true })
  return samplerFrom(env).sampler.shouldSample(parent, traceId, 'tools/call', SpanKind.SERVER, {}, []).decision
}

const ON = SamplingDecision.RECORD_AND_SAMPLED
const OFF = SamplingDecision.NOT_RECORD

t.test('the default follows the parent, and samples a root', async (t) => {
  t.equal(decide({}, HIGH_TRACE), ON)
  t.equal(decide({}, HIGH_TRACE, false), OFF, 'a client that did not sample its trace: no spans')
  t.equal(decide({}, HIGH_TRACE, true), ON)
  t.equal(samplerFrom({}).problem, undefined)
})

t.test('named samplers', async (t) => {
  const cases: Array<[Record<string, string>, string, boolean | undefined, SamplingDecision]> = [
    [{ OTEL_TRACES_SAMPLER: 'always_off' }, LOW_TRACE, true, OFF],
    [{ OTEL_TRACES_SAMPLER: 'always_on' }, HIGH_TRACE, false, ON],
    [{ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.5' }, LOW_TRACE, undefined, ON],
    [{ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.5' }, HIGH_TRACE, undefined, OFF],
    [{ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }, LOW_TRACE, undefined, OFF],
    [{ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }, LOW_TRACE, true, ON],
    [{ OTEL_TRACES_SAMPLER: 'PARENTBASED_ALWAYS_OFF' }, LOW_TRACE, undefined, OFF],
    [{ OTEL_TRACES_SAMPLER: 'parentbased_always_off' }, LOW_TRACE, true, ON],
  ]
  for (const [env, traceId, parent, expected] of cases) {
    t.equal(decide(env, traceId, parent), expected, `${JSON.stringify(env)} parent ${parent}`)
    t.equal(samplerFrom(env).problem, undefined)
  }
})

t.test('an unknown sampler or a ratio outside 0..1 → the default, with the reason', async (t) => {
  const bad: Array<Record<string, string>> = [{ OTEL_TRACES_SAMPLER: 'jaeger_remote' }, { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }, { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: 'half' }]
  for (const env of bad) {
    const choice = samplerFrom(env)
    t.match(choice.problem, /not supported; using parentbased_always_on/)
    t.equal(decide(env, HIGH_TRACE, false), OFF, 'parent-based')
    t.equal(decide(env, HIGH_TRACE), ON, 'always on for a root')
  }
})
