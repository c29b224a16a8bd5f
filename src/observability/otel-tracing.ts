// OpenTelemetry spans (README "Tracing"), loaded by tracing.ts only when OTLP trace export is on.
// Named and attributed after the OpenTelemetry semantic conventions for MCP (otel-semconv.ts): a
// SERVER span per MCP request (`tools/call {tool}`), a CLIENT span per upstream call, its child,
// whose id is the parent the backend sees (TRACE-2). Contexts are passed explicitly (no context
// manager, no async hooks). Export is off the request path: a BatchSpanProcessor with a bounded
// queue (OTEL_BSP_* settings; past maxQueueSize spans are dropped), so an OTLP endpoint that is
// down never slows a request.
import { createHash } from 'node:crypto'
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, createContextKey, createTraceState, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api'
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace'
import { resourceFromAttributes } from '@opentelemetry/resources'
import type { JsonObject } from '../protocol/jsonrpc.ts'
import { META } from '../protocol/meta.ts'
import { formatTraceparent, readTraceContext, traceparentFields, withTraceHeaders, withTraceMeta, type TraceContext } from '../protocol/trace-context.ts'
import type { ValidRequest } from '../protocol/validate.ts'
import { ATTR, EXECUTE_TOOL, failureType, outcomeOf, resourceAttributes, targetOf, transportOf, type CallTarget } from './otel-semconv.ts'
import { samplerFrom } from './otel-sampler.ts'
import { contextFor, otlpProtocol, type OtelOptions, type RequestTrace, type TracedBackend, type Tracing, type UpstreamTrace } from './tracing.ts'

const TRACER_NAME = 'mcp-gateway'

// startSpan reads its parent from a Context: the value under the API's span key (a Symbol.for key,
// shared by every copy of the API). A context holding just that span is one small object, where
// ROOT_CONTEXT.setValue copies a Map and makes three closures, twice per request.
const SPAN_KEY = createContextKey('OpenTelemetry Context Key SPAN')

export class ParentContext implements Context {
  readonly #span: Span

  constructor(span: Span) {
    this.#span = span
  }

  getValue(key: symbol): unknown {
    return key === SPAN_KEY ? this.#span : undefined
  }

  setValue(key: symbol, value: unknown): Context {
    return trace.setSpan(ROOT_CONTEXT, this.#span).setValue(key, value)
  }

  deleteValue(key: symbol): Context {
    return key === SPAN_KEY ? ROOT_CONTEXT : this
  }
}

// `incoming` is readTraceContext's: its traceparent, if any, is valid.
function remoteParent(incoming: TraceContext | undefined): Context {
  if (incoming?.traceparent === undefined) return ROOT_CONTEXT
  const parsed = traceparentFields(incoming.traceparent)
  const traceState = incoming.tracestate === undefined ? undefined : createTraceState(incoming.tracestate)
  return new ParentContext(trace.wrapSpanContext({ traceId: parsed.traceId, spanId: parsed.spanId, traceFlags: parsed.flags, isRemote: true, traceState }))
}

// The span name: `{method} {tool or prompt}`.
function spanName(method: string, target: CallTarget | undefined): string {
  const named = target?.tool ?? target?.prompt
  return named === undefined ? method : `${method} ${named}`
}

// The call's target, added to `attributes`.
function addTarget(attributes: Attributes, target: CallTarget | undefined): Attributes {
  if (target?.tool !== undefined) {
    attributes[ATTR.toolName] = target.tool
    attributes[ATTR.operation] = EXECUTE_TOOL
  } else if (target?.prompt !== undefined) attributes[ATTR.promptName] = target.prompt
  else if (target?.uri !== undefined) attributes[ATTR.resourceUri] = target.uri
  return attributes
}

// error.type: the JSON-RPC error code, `tool_error` for an isError result.
function markOutcome(span: Span, outcome: unknown): void {
  const { errorType, statusCode } = outcomeOf(outcome)
  if (statusCode !== undefined) span.setAttribute(ATTR.statusCode, statusCode)
  if (errorType !== undefined) span.setAttribute(ATTR.errorType, errorType).setStatus({ code: SpanStatusCode.ERROR })
}

// A transport failure: its reason (`timeout`, ...).
function markFailure(span: Span, err: unknown): void {
  span.setAttribute(ATTR.errorType, failureType(err))
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) })
}

// Attribute objects are literals (the ATTR names spelled out): cheaper than computed keys. They are
// set on the started span, not passed to startSpan: the SDK validates what startSpan is given twice
// (for the sampler, then for the span), a WeakSet and an entries array per value each time, 3 KB a
// call (issue 13); the samplers this gateway offers (README "Tracing") do not look at attributes.
// A span sampled out gets none: such a request pays for its ids and context alone.
function clientSpan(tracer: Tracer, parent: Context, backend: TracedBackend, call: { method: string; params: JsonObject }): Span {
  const target = targetOf(call.method, call.params)
  const span = tracer.startSpan(spanName(call.method, target), { kind: SpanKind.CLIENT }, parent)
  if (!span.isRecording()) return span
  const version = (call.params._meta as JsonObject | undefined)?.[META.protocolVersion]
  const attributes: Attributes = { 'mcp.method.name': call.method, 'peer.service': backend.config.name, 'network.transport': transportOf(backend) }
  if (typeof version === 'string') attributes[ATTR.protocolVersion] = version
  return span.setAttributes(addTarget(attributes, target))
}

function upstreamTrace(span: Span, sent: TraceContext): UpstreamTrace {
  return {
    params: (p) => withTraceMeta(p, sent),
    headers: (h) => withTraceHeaders(h, sent),
    watch: (pending) => {
      if (!span.isRecording()) return pending
      pending.then((outcome) => (markOutcome(span, outcome), span.end()), (err: unknown) => (markFailure(span, err), span.end()))
      return pending
    },
  }
}

function requestTrace(tracer: Tracer, server: Span, incoming: TraceContext | undefined): RequestTrace {
  let parent: Context | undefined
  return {
    upstream(backend, method, params): UpstreamTrace {
      const span = clientSpan(tracer, (parent ??= new ParentContext(server)), backend, { method, params })
      const own = span.spanContext()
      const traceparent = formatTraceparent(own.traceId, own.spanId, own.traceFlags)
      return upstreamTrace(span, contextFor(backend, incoming === undefined ? { traceparent } : { ...incoming, traceparent }))
    },
    finish(reply) {
      markOutcome(server, reply)
      server.end()
    },
  }
}

function serverSpan(tracer: Tracer, valid: ValidRequest, incoming: TraceContext | undefined, sessionId: string | undefined): Span {
  const { method } = valid.request
  const target = targetOf(method, valid.params)
  const span = tracer.startSpan(spanName(method, target), { kind: SpanKind.SERVER }, remoteParent(incoming))
  if (!span.isRecording()) return span
  const attributes: Attributes = { 'mcp.method.name': method, 'jsonrpc.request.id': String(valid.request.id), 'mcp.protocol.version': valid.version }
  // The legacy session id is a bearer token for the session: traces get a digest of it.
  if (sessionId !== undefined) attributes[ATTR.sessionId] = createHash('sha256').update(sessionId).digest('hex').slice(0, 32)
  return span.setAttributes(addTarget(attributes, target))
}

// The standard OTEL_BSP_* variables (the SDK's processor no longer reads them itself); a value that
// is not a positive integer is ignored. The queue is bounded whatever they say.
const BSP_ENV = {
  scheduledDelayMillis: 'OTEL_BSP_SCHEDULE_DELAY',
  exportTimeoutMillis: 'OTEL_BSP_EXPORT_TIMEOUT',
  maxQueueSize: 'OTEL_BSP_MAX_QUEUE_SIZE',
  maxExportBatchSize: 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
} as const
const MAX_QUEUE_SIZE = 2048

export function queueOptionsFrom(env: Record<string, string | undefined>): Partial<Record<keyof typeof BSP_ENV, number>> {
  const options: Partial<Record<keyof typeof BSP_ENV, number>> = { maxQueueSize: MAX_QUEUE_SIZE }
  for (const [key, name] of Object.entries(BSP_ENV) as Array<[keyof typeof BSP_ENV, string]>) {
    const value = Number(env[name])
    if (Number.isInteger(value) && value > 0) options[key] = value
  }
  options.maxExportBatchSize = Math.min(options.maxExportBatchSize ?? 512, options.maxQueueSize!)
  return options
}

// OTLP/HTTP, protobuf unless OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL says http/json; the exporter reads
// the other OTEL_EXPORTER_OTLP_* variables itself (endpoint, headers, timeout).
async function createExporter(env: Record<string, string | undefined>): Promise<SpanExporter> {
  if (otlpProtocol(env, 'TRACES') === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter()
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter()
}

export async function createOtelTracing(options: OtelOptions): Promise<Tracing> {
  const resource = resourceFromAttributes(resourceAttributes(options))
  const processor = new BatchSpanProcessor({ exporter: await createExporter(options.env), ...queueOptionsFrom(options.env) })
  const { sampler, problem } = samplerFrom(options.env)
  // The OpenTelemetry rule for a sampler it does not know: a warning, and the default.
  if (problem !== undefined) process.stderr.write(`mcp-gateway: warning: ${problem}\n`)
  const provider = new TracerProvider({ resource, sampler, spanProcessors: [processor] })
  const tracer = provider.getTracer(TRACER_NAME, options.version)
  return {
    begin(valid, headers, sessionId) {
      const incoming = readTraceContext(valid.meta, headers)
      return requestTrace(tracer, serverSpan(tracer, valid, incoming, sessionId), incoming)
    },
    shutdown: () => provider.shutdown(),
  }
}
