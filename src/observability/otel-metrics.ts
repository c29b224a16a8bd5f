// OpenTelemetry metrics (README "Tracing"), loaded by tracing.ts only when OTLP metric export is on:
// the semantic conventions' `mcp.server.operation.duration` (each MCP request the gateway serves,
// from validation to the routed reply) and `mcp.client.operation.duration` (each call to a backend,
// from dispatch, its wait for a slot included, to the answer or failure), in seconds. It wraps the
// request's trace (spans or pass-through), which goes on unchanged. Attributes are bounded: a tool
// or prompt name only once the catalogue resolved it (an upstream call was made) and, past
// `toolLabelLimit` distinct ones, "other" (as mcp_gateway_tool_call_duration_seconds); methods and
// error types capped too; never request or session ids. A periodic reader exports every
// OTEL_METRIC_EXPORT_INTERVAL ms, and once more at shutdown.
import type { Attributes, Histogram } from '@opentelemetry/api'
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics'
import { resourceFromAttributes } from '@opentelemetry/resources'
import type { JsonObject } from '../protocol/jsonrpc.ts'
import { META } from '../protocol/meta.ts'
import type { ValidRequest } from '../protocol/validate.ts'
import { LabelCap } from './label-cap.ts'
import { ATTR, EXECUTE_TOOL, failureType, outcomeOf, resourceAttributes, targetOf, transportOf, type CallTarget, type Outcome } from './otel-semconv.ts'
import { otlpProtocol, type OtelOptions, type RequestTrace, type TracedBackend, type Tracing, type UpstreamTrace } from './tracing.ts'
import { clockMs, secondsSince } from './clock.ts'

export const SERVER_DURATION = 'mcp.server.operation.duration'
export const CLIENT_DURATION = 'mcp.client.operation.duration'
// The explicit bucket boundaries the semantic conventions give both metrics (seconds).
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]
const OTHER = 'other'
// error.type's fallback value in the semantic conventions.
const OTHER_ERROR = '_OTHER'
// A request that ended without a reply (the client went away; a legacy call given up).
const NO_REPLY: Outcome = { errorType: 'no_reply' }
const METHOD_LIMIT = 64
const ERROR_TYPE_LIMIT = 64

interface Instruments {
  server: Histogram
  client: Histogram
  method(method: string): string
  errorType(type: string): string
  // A resolved tool or prompt name: the client's (server metric), the backend's (client metric).
  serverTarget(name: string): string
  clientTarget(backend: string, name: string): string
}

function createInstruments(provider: MeterProvider, options: OtelOptions): Instruments {
  const meter = provider.getMeter('mcp-gateway', options.version)
  const advice = { explicitBucketBoundaries: DURATION_BUCKETS }
  const methods = new LabelCap(METHOD_LIMIT, OTHER)
  const errors = new LabelCap(ERROR_TYPE_LIMIT, OTHER_ERROR)
  const serverTargets = new LabelCap(options.toolLabelLimit, OTHER)
  const clientTargets = new LabelCap(options.toolLabelLimit, OTHER)
  return {
    server: meter.createHistogram(SERVER_DURATION, { unit: 's', description: 'MCP request duration as observed by the gateway, from the validated request to the reply', advice }),
    client: meter.createHistogram(CLIENT_DURATION, { unit: 's', description: 'Duration of the gateway\'s calls to its backends, from dispatch to the answer', advice }),
    method: (method) => methods.label(method),
    errorType: (type) => errors.label(type),
    serverTarget: (name) => serverTargets.label(name),
    clientTarget: (backend, name) => clientTargets.label(name, backend),
  }
}

function addTarget(attributes: Attributes, target: CallTarget | undefined, bound: (name: string) => string): void {
  if (target?.tool !== undefined) attributes[ATTR.toolName] = bound(target.tool)
  else if (target?.prompt !== undefined) attributes[ATTR.promptName] = bound(target.prompt)
}

function addOutcome(m: Instruments, attributes: Attributes, outcome: Outcome): Attributes {
  if (outcome.errorType !== undefined) attributes[ATTR.errorType] = m.errorType(outcome.errorType)
  if (outcome.statusCode !== undefined) attributes[ATTR.statusCode] = m.errorType(outcome.statusCode)
  return attributes
}

// server.address and server.port of an HTTP backend, read once per backend config.
const ADDRESSES = new WeakMap<object, Attributes>()

function addressOf(backend: TracedBackend): Attributes {
  let address = ADDRESSES.get(backend.config)
  if (address === undefined) {
    const url = backend.config.url === undefined ? undefined : URL.parse(backend.config.url)
    const port = url === null || url === undefined ? undefined : Number(url.port || (url.protocol === 'https:' ? 443 : 80))
    address = url === null || url === undefined ? {} : { [ATTR.serverAddress]: url.hostname, [ATTR.serverPort]: port }
    ADDRESSES.set(backend.config, address)
  }
  return address
}

interface UpstreamCall {
  backend: TracedBackend
  method: string
  params: JsonObject
}

function clientAttributes(m: Instruments, call: UpstreamCall, outcome: Outcome): Attributes {
  const { backend, method, params } = call
  const attributes: Attributes = { 'mcp.method.name': m.method(method), 'peer.service': backend.config.name, 'network.transport': transportOf(backend), ...addressOf(backend) }
  // Set by the gateway for this backend (the version it negotiated): bounded.
  const version = (params._meta as JsonObject | undefined)?.[META.protocolVersion]
  if (typeof version === 'string') attributes[ATTR.protocolVersion] = version
  addTarget(attributes, targetOf(method, params), (name) => m.clientTarget(backend.config.name, name))
  if (method === 'tools/call') attributes[ATTR.operation] = EXECUTE_TOOL
  return addOutcome(m, attributes, outcome)
}

function serverAttributes(m: Instruments, valid: ValidRequest, resolved: boolean, outcome: Outcome): Attributes {
  const method = valid.request.method
  // The front door is HTTP: tcp.
  const attributes: Attributes = { 'mcp.method.name': m.method(method), 'mcp.protocol.version': valid.version, 'network.transport': 'tcp' }
  if (resolved) addTarget(attributes, targetOf(method, valid.params), m.serverTarget)
  if (method === 'tools/call') attributes[ATTR.operation] = EXECUTE_TOOL
  return addOutcome(m, attributes, outcome)
}

// No trace context and no spans: the call's params and headers go on as they are.
const UNTRACED: UpstreamTrace = { params: (p) => p, headers: (h) => h, watch: (pending) => pending }

class MeteredUpstream implements UpstreamTrace {
  readonly #m: Instruments
  readonly #inner: UpstreamTrace
  readonly #call: UpstreamCall
  readonly #started = clockMs()

  constructor(m: Instruments, inner: UpstreamTrace, call: UpstreamCall) {
    this.#m = m
    this.#inner = inner
    this.#call = call
  }

  params(params: JsonObject): JsonObject {
    return this.#inner.params(params)
  }

  headers(headers: Record<string, string> | undefined): Record<string, string> | undefined {
    return this.#inner.headers(headers)
  }

  watch<T>(pending: Promise<T>): Promise<T> {
    pending.then((outcome) => this.#record(outcomeOf(outcome)), (err: unknown) => this.#record({ errorType: failureType(err) }))
    return this.#inner.watch(pending)
  }

  #record(outcome: Outcome): void {
    this.#m.client.record(secondsSince(this.#started), clientAttributes(this.#m, this.#call, outcome))
  }
}

class MeteredRequest implements RequestTrace {
  readonly #m: Instruments
  readonly #inner: RequestTrace | undefined
  readonly #valid: ValidRequest
  readonly #started = clockMs()
  // An upstream call was made: the catalogue resolved the tool or prompt named.
  #resolved = false

  constructor(m: Instruments, inner: RequestTrace | undefined, valid: ValidRequest) {
    this.#m = m
    this.#inner = inner
    this.#valid = valid
  }

  upstream(backend: TracedBackend, method: string, params: JsonObject): UpstreamTrace {
    this.#resolved = true
    return new MeteredUpstream(this.#m, this.#inner?.upstream(backend, method, params) ?? UNTRACED, { backend, method, params })
  }

  finish(reply: Parameters<RequestTrace['finish']>[0]): void {
    this.#inner?.finish(reply)
    const outcome = reply === undefined ? NO_REPLY : outcomeOf(reply)
    this.#m.server.record(secondsSince(this.#started), serverAttributes(this.#m, this.#valid, this.#resolved, outcome))
  }
}

// OTEL_METRIC_EXPORT_INTERVAL (default 60000 ms) and OTEL_METRIC_EXPORT_TIMEOUT (30000 ms, at most
// the interval); a value that is not a positive integer is ignored.
export function readerOptionsFrom(env: Record<string, string | undefined>): { exportIntervalMillis: number; exportTimeoutMillis: number } {
  const positive = (text: string | undefined): number | undefined => {
    const value = Number(text)
    return Number.isInteger(value) && value > 0 ? value : undefined
  }
  const exportIntervalMillis = positive(env.OTEL_METRIC_EXPORT_INTERVAL) ?? 60_000
  return { exportIntervalMillis, exportTimeoutMillis: Math.min(positive(env.OTEL_METRIC_EXPORT_TIMEOUT) ?? 30_000, exportIntervalMillis) }
}

// OTLP/HTTP, protobuf unless OTEL_EXPORTER_OTLP_[METRICS_]PROTOCOL says http/json; the exporter
// reads the other OTEL_EXPORTER_OTLP_* variables itself (endpoint, headers, temporality).
async function createExporter(env: Record<string, string | undefined>): Promise<PushMetricExporter> {
  if (otlpProtocol(env, 'METRICS') === 'http/json') return new (await import('@opentelemetry/exporter-metrics-otlp-http')).OTLPMetricExporter()
  return new (await import('@opentelemetry/exporter-metrics-otlp-proto')).OTLPMetricExporter()
}

export async function withOperationMetrics(inner: Tracing, options: OtelOptions): Promise<Tracing> {
  const reader = new PeriodicExportingMetricReader({ exporter: await createExporter(options.env), ...readerOptionsFrom(options.env) })
  const provider = new MeterProvider({ resource: resourceFromAttributes(resourceAttributes(options)), readers: [reader] })
  const m = createInstruments(provider, options)
  return {
    begin: (valid, headers, sessionId) => new MeteredRequest(m, inner.begin(valid, headers, sessionId), valid),
    shutdown: async () => {
      await Promise.all([inner.shutdown(), provider.shutdown()])
    },
  }
}
