// The standard OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG variables (the SDK's TracerProvider no
// longer reads them itself): which requests get spans. Default parentbased_always_on: every request,
// unless the client's traceparent says its trace is not sampled. An unknown name or a ratio outside
// 0..1 falls back to the default (and says so, once, at start).
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler } from '@opentelemetry/sdk-trace'

type Env = Record<string, string | undefined>

export interface SamplerChoice {
  sampler: Sampler
  // Why the configured value was not used; absent: it was.
  problem?: string
}

function ratioFrom(env: Env): number | undefined {
  const text = env.OTEL_TRACES_SAMPLER_ARG
  if (text === undefined || text === '') return 1
  const ratio = Number(text)
  return Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 ? ratio : undefined
}

function rootSampler(name: string, env: Env): Sampler | undefined {
  if (name === 'always_on') return new AlwaysOnSampler()
  if (name === 'always_off') return new AlwaysOffSampler()
  if (name !== 'traceidratio') return undefined
  const ratio = ratioFrom(env)
  return ratio === undefined ? undefined : new TraceIdRatioBasedSampler(ratio)
}

export function samplerFrom(env: Env): SamplerChoice {
  const name = (env.OTEL_TRACES_SAMPLER ?? '').trim().toLowerCase() || 'parentbased_always_on'
  const parentBased = name.startsWith('parentbased_')
  const root = rootSampler(parentBased ? name.slice('parentbased_'.length) : name, env)
  if (root === undefined) {
    const problem = `OTEL_TRACES_SAMPLER=${name} (arg ${env.OTEL_TRACES_SAMPLER_ARG ?? 'unset'}) is not supported; using parentbased_always_on`
    return { sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }), problem }
  }
  return { sampler: parentBased ? new ParentBasedSampler({ root }) : root }
}
