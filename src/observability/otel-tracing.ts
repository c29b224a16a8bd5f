// OpenTelemetry spans (README "Tracing"), loaded by tracing.ts only when OTLP export is configured.
// Named and attributed after the OpenTelemetry semantic conventions for MCP: a SERVER span per MCP
// request (`tools/call {tool}`), a CLIENT span per upstream call, its child, whose id is the parent
// the backend sees (TRACE-2). Contexts are passed explicitly (no context manager, no async hooks).
// Export is off the request path: a BatchSpanProcessor with a bounded queue (OTEL_BSP_* settings;
// past maxQueueSize spans are dropped), so an OTLP endpoint that is down never slows a request.
import { createHash } from 'node:crypto'
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, createTraceState, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api'
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import type { JsonObject } from '../protocol/jsonrpc.ts'
import { META } from '../protocol/meta.ts'
import { formatTraceparent, parseTraceparent, readTraceContext, withTraceHeaders, withTraceMeta, type TraceContext } from '../protocol/trace-context.ts'
import type { ValidRequest } from '../protocol/validate.ts'
import { contextFor, type RequestTrace, type TracedBackend, type Tracing, type UpstreamTrace } from './tracing.ts'

// Semantic conventions (MCP, GenAI, RPC, error), spelled out: the set is small and stable.
const ATTR = {
  method: 'mcp.method.name',
  protocolVersion: 'mcp.protocol.version',
  sessionId: 'mcp.session.id',
  resourceUri: 'mcp.resource.uri',
  requestId: 'jsonrpc.request.id',
  toolName: 'gen_ai.tool.name',
  promptName: 'gen_ai.prompt.name',
  operation: 'gen_ai.operation.name',
  errorType: 'error.type',
  statusCode: 'rpc.response.status_code',
  transport: 'network.transport',
  peer: 'peer.service',
} as const

const TRACER_NAME = 'mcp-gateway'

function remoteParent(context: TraceContext | undefined): Context {
  const parsed = parseTraceparent(context?.traceparent)
  if (parsed === undefined) return ROOT_CONTEXT
  const traceState = context?.tracestate === undefined ? undefined : createTraceState(context.tracestate)
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: parsed.traceId, spanId: parsed.spanId, traceFlags: parsed.flags, isRemote: true, traceState })
}

// What the call names, added to `attributes`: a tool or prompt (the span name's target), a resource
// URI (an attribute only).
function addTarget(attributes: Attributes, method: string, params: JsonObject): Attributes {
  const name = typeof params.name === 'string' ? params.name : undefined
  if (method === 'tools/call' && name !== undefined) {
    attributes[ATTR.toolName] = name
    attributes[ATTR.operation] = 'execute_tool'
  } else if (method === 'prompts/get' && name !== undefined) attributes[ATTR.promptName] = name
  else if (method === 'resources/read' && typeof params.uri === 'string') attributes[ATTR.resourceUri] = params.uri
  return attributes
}

function spanName(method: string, attributes: Attributes): string {
  const target = attributes[ATTR.toolName] ?? attributes[ATTR.promptName]
  return target === undefined ? method : `${method} ${String(target)}`
}

// error.type: the JSON-RPC error code, `tool_error` for an isError result, a transport failure's reason.
function markOutcome(span: Span, outcome: unknown): void {
  const reply = (outcome as { kind?: string; reply?: unknown })?.kind === 'reply' ? (outcome as { reply: unknown }).reply : outcome
  const { ok, error, result } = (reply ?? {}) as { ok?: boolean; error?: { code?: unknown }; result?: { isError?: unknown } }
  let errorType: string | undefined
  if (ok === false) errorType = String(error?.code)
  else if (result?.isError === true) errorType = 'tool_error'
  if (ok === false) span.setAttribute(ATTR.statusCode, String(error?.code))
  if (errorType !== undefined) span.setAttributes({ [ATTR.errorType]: errorType }).setStatus({ code: SpanStatusCode.ERROR })
}

function markFailure(span: Span, err: unknown): void {
  const reason = (err as { reason?: unknown })?.reason
  span.setAttribute(ATTR.errorType, typeof reason === 'string' ? reason : err instanceof Error ? err.name : 'error')
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) })
}

function clientSpan(tracer: Tracer, parent: Context, backend: TracedBackend, call: { method: string; params: JsonObject }): Span {
  const meta = call.params._meta as JsonObject | undefined
  const attributes = addTarget({
    [ATTR.method]: call.method,
    [ATTR.peer]: backend.config.name,
    [ATTR.transport]: backend.config.transport === 'stdio' ? 'pipe' : 'tcp',
  }, call.method, call.params)
  if (typeof meta?.[META.protocolVersion] === 'string') attributes[ATTR.protocolVersion] = meta[META.protocolVersion] as string
  return tracer.startSpan(spanName(call.method, attributes), { kind: SpanKind.CLIENT, attributes }, parent)
}

function requestTrace(tracer: Tracer, server: Span, incoming: TraceContext | undefined): RequestTrace {
  const parent = trace.setSpan(ROOT_CONTEXT, server)
  return {
    upstream(backend, method, params): UpstreamTrace {
      const span = clientSpan(tracer, parent, backend, { method, params })
      const own = span.spanContext()
      const sent = contextFor(backend, { ...incoming, traceparent: formatTraceparent(own.traceId, own.spanId, own.traceFlags) })
      return {
        params: (p) => withTraceMeta(p, sent),
        headers: (h) => withTraceHeaders(h, sent),
        watch: (pending) => {
          pending.then((outcome) => (markOutcome(span, outcome), span.end()), (err: unknown) => (markFailure(span, err), span.end()))
          return pending
        },
      }
    },
    finish(reply) {
      markOutcome(server, reply)
      server.end()
    },
  }
}

function serverAttributes(valid: ValidRequest, sessionId: string | undefined): Attributes {
  const attributes = addTarget({
    [ATTR.method]: valid.request.method,
    [ATTR.requestId]: String(valid.request.id),
    [ATTR.protocolVersion]: valid.version,
  }, valid.request.method, valid.params)
  // The legacy session id is a bearer token for the session: traces get a digest of it.
  if (sessionId !== undefined) attributes[ATTR.sessionId] = createHash('sha256').update(sessionId).digest('hex').slice(0, 32)
  return attributes
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

export interface OtelOptions {
  version: string
  serviceName?: string
  env: Record<string, string | undefined>
}

export function createOtelTracing(options: OtelOptions): Tracing {
  const resource = resourceFromAttributes({ 'service.name': options.serviceName ?? 'mcp-gateway', 'service.version': options.version })
  // The exporter reads the standard OTEL_EXPORTER_OTLP_* variables itself (endpoint, headers, timeout).
  const processor = new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), ...queueOptionsFrom(options.env) })
  const provider = new TracerProvider({ resource, spanProcessors: [processor] })
  const tracer = provider.getTracer(TRACER_NAME, options.version)
  return {
    begin(valid, headers, sessionId) {
      const incoming = readTraceContext(valid.meta, headers)
      const attributes = serverAttributes(valid, sessionId)
      const span = tracer.startSpan(spanName(valid.request.method, attributes), { kind: SpanKind.SERVER, attributes }, remoteParent(incoming))
      return requestTrace(tracer, span, incoming)
    },
    shutdown: () => provider.shutdown(),
  }
}
