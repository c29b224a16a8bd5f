// Tracing (README "Tracing"). Always: the W3C trace context a client sends (TRACE-2) goes on to
// the backend, in `_meta` and as HTTP headers, with `baggage` only to backends trusted with it.
// With OpenTelemetry spans on (an OTLP traces endpoint set, OTEL_TRACES_EXPORTER not "none"): a
// server span per MCP request, a client span per upstream call (otel-tracing.ts). With OpenTelemetry
// metrics on (an OTLP metrics endpoint set, OTEL_METRICS_EXPORTER not "none"): the duration of each
// (otel-metrics.ts). Both export over OTLP/HTTP and are loaded only when on; both off, nothing of
// the SDK is loaded and a request without trace context costs two property lookups per side.
import type { IncomingHttpHeaders } from 'node:http'
import type { JsonObject } from '../protocol/jsonrpc.ts'
import { readTraceContext, withTraceHeaders, withTraceMeta, type TraceContext } from '../protocol/trace-context.ts'
import type { ValidRequest } from '../protocol/validate.ts'

// What a traced upstream call needs to know about its backend.
export interface TracedBackend {
  config: { name: string; transport: string; forwardBaggage?: boolean; url?: string }
}

// One upstream call: its params and headers with the trace context, and (spans on) its end.
export interface UpstreamTrace {
  params(params: JsonObject): JsonObject
  headers(headers: Record<string, string> | undefined): Record<string, string> | undefined
  // Ends the client span when `pending` settles; returns `pending` itself.
  watch<T>(pending: Promise<T>): Promise<T>
}

// One MCP request, from validation to the routed reply.
export interface RequestTrace {
  upstream(backend: TracedBackend, method: string, params: JsonObject): UpstreamTrace
  // The routed reply (undefined: the request ended without one); ends the server span.
  finish(reply: { ok: boolean; error?: { code: number }; result?: JsonObject } | undefined): void
}

export interface Tracing {
  // Undefined when there is nothing to do for this request (tracing off, no trace context).
  begin(valid: ValidRequest, headers: IncomingHttpHeaders, sessionId?: string): RequestTrace | undefined
  // Exports what is queued (bounded by the exporter's timeout); the app's onClose.
  shutdown(): Promise<void>
}

// TRACE-2: baggage may carry what an untrusted backend should not see.
export function contextFor(backend: TracedBackend, context: TraceContext): TraceContext {
  return backend.config.forwardBaggage === true || context.baggage === undefined ? context : { ...context, baggage: undefined }
}

// The incoming context passed on unchanged (the gateway opens no span of its own).
function passThrough(context: TraceContext): RequestTrace {
  return {
    upstream: (backend) => {
      const sent = contextFor(backend, context)
      return { params: (p) => withTraceMeta(p, sent), headers: (h) => withTraceHeaders(h, sent), watch: (pending) => pending }
    },
    finish: () => {},
  }
}

export const PASS_THROUGH_TRACING: Tracing = {
  begin: (valid, headers) => {
    const context = readTraceContext(valid.meta, headers)
    return context === undefined ? undefined : passThrough(context)
  },
  shutdown: async () => {},
}

type Env = Record<string, string | undefined>
type Signal = 'TRACES' | 'METRICS'

// The standard variables: the signal's own endpoint or the common one, its exporter not "none",
// the SDK not disabled.
function isSignalOn(env: Env, signal: Signal): boolean {
  const endpoint = env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`] || env.OTEL_EXPORTER_OTLP_ENDPOINT
  return endpoint !== undefined && endpoint !== '' && env[`OTEL_${signal}_EXPORTER`] !== 'none' && env.OTEL_SDK_DISABLED?.toLowerCase() !== 'true'
}

export function isOtelEnabled(env: Env): boolean {
  return isSignalOn(env, 'TRACES')
}

export function isOtelMetricsEnabled(env: Env): boolean {
  return isSignalOn(env, 'METRICS')
}

// OTEL_EXPORTER_OTLP_[signal_]PROTOCOL: "http/json", else "http/protobuf" (the specification's
// default; "grpc" is not offered).
export function otlpProtocol(env: Env, signal: Signal): 'http/json' | 'http/protobuf' {
  const protocol = env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] || env.OTEL_EXPORTER_OTLP_PROTOCOL
  return protocol === 'http/json' ? 'http/json' : 'http/protobuf'
}

export interface OtelOptions {
  version: string
  serviceName?: string
  env: Env
  // Distinct tool (and prompt) names a metric attribute takes before new ones are "other".
  toolLabelLimit: number
}

// The entry point's one call (src/server.ts): the SDK is imported only for what is on.
export async function startTracing(env: Env, version: string, limits: { toolLabelLimit: number }): Promise<Tracing> {
  const spans = isOtelEnabled(env)
  const metrics = isOtelMetricsEnabled(env)
  if (!spans && !metrics) return PASS_THROUGH_TRACING
  const options: OtelOptions = { version, serviceName: env.OTEL_SERVICE_NAME || undefined, env, toolLabelLimit: limits.toolLabelLimit }
  const tracing = spans ? await (await import('./otel-tracing.ts')).createOtelTracing(options) : PASS_THROUGH_TRACING
  return metrics ? (await import('./otel-metrics.ts')).withOperationMetrics(tracing, options) : tracing
}
