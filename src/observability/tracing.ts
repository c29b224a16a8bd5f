// Tracing (README "Tracing"). Always: the W3C trace context a client sends (TRACE-2) goes on to
// the backend, in `_meta` and as HTTP headers, with `baggage` only to backends trusted with it.
// With OpenTelemetry on (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT set, and
// OTEL_TRACES_EXPORTER not "none"): a server span per MCP request, a client span per upstream call,
// exported over OTLP/HTTP (otel-tracing.ts, loaded only then). Off, nothing of the SDK is loaded
// and a request without trace context costs two property lookups per side.
import type { IncomingHttpHeaders } from 'node:http'
import type { JsonObject } from '../protocol/jsonrpc.ts'
import { readTraceContext, withTraceHeaders, withTraceMeta, type TraceContext } from '../protocol/trace-context.ts'
import type { ValidRequest } from '../protocol/validate.ts'

// What a traced upstream call needs to know about its backend.
export interface TracedBackend {
  config: { name: string; transport: string; forwardBaggage?: boolean }
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

export function isOtelEnabled(env: Env): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT
  return endpoint !== undefined && endpoint !== '' && env.OTEL_TRACES_EXPORTER !== 'none' && env.OTEL_SDK_DISABLED !== 'true'
}

// The entry point's one call (src/server.ts): the SDK is imported only when tracing is on.
export async function startTracing(env: Env, version: string): Promise<Tracing> {
  if (!isOtelEnabled(env)) return PASS_THROUGH_TRACING
  const { createOtelTracing } = await import('./otel-tracing.ts')
  return createOtelTracing({ version, serviceName: env.OTEL_SERVICE_NAME || undefined, env })
}
