// Metric instruments, created by a factory on the app's own Registry (never the default one).
// Labels are bounded: method from the method table, backend from config, outcome from OUTCOME.
import { Counter, Gauge, type Registry } from 'prom-client'
import { MODERN_METHODS } from '../protocol/methods.ts'
import { callBuckets } from './buckets.ts'
import { PathCounter, PathHistogram } from './path-series.ts'
import { createSessionMetrics, type SessionMetrics } from './session-metrics.ts'
import { createToolMetrics, type ToolMetrics } from './tool-metrics.ts'
import { createUpstreamMetrics, type UpstreamMetrics } from './upstream-metrics.ts'

export const OUTCOME = {
  ok: 'ok',
  // Refused before dispatch (4xx): bad JSON, headers, _meta, version, unknown method.
  rejected: 'rejected',
  // A JSON-RPC error in band: from a backend or from routing (unknown tool, bad cursor).
  error: 'error',
  // The gateway could not get an answer from the backend (down, timeout, bad reply).
  upstreamFailure: 'upstream_failure',
  cancelled: 'cancelled',
  // A tools/call whose result says `isError: true`: the tool ran and failed.
  toolError: 'tool_error',
} as const
export type Outcome = (typeof OUTCOME)[keyof typeof OUTCOME]

export function methodLabel(method: string | undefined): string {
  if (method === undefined) return 'invalid'
  return MODERN_METHODS.has(method) ? method : 'other'
}

// The SSE streams open now, by kind: a POST's response stream, a subscriptions/listen stream, a
// legacy session's GET stream.
export const STREAM_KIND = { response: 'response', listen: 'listen', legacyGet: 'legacy_get' } as const
export type StreamKind = (typeof STREAM_KIND)[keyof typeof STREAM_KIND]
export type StreamGauges = Record<StreamKind, { inc(): void; dec(): void }>

export interface GatewayMetrics {
  observeRequest(method: string, outcome: Outcome, seconds: number): void
  observeUpstream(backend: string, outcome: Outcome): void
  sseStreams: StreamGauges
  setBackendStatus(collect: () => Array<{ name: string; up: boolean }>): void
  limits: LimitMetrics
  tools: ToolMetrics
  upstream: UpstreamMetrics
  sessions: SessionMetrics
}

export interface MetricsOptions {
  // The largest backend timeoutMs: the duration buckets reach past it.
  maxTimeoutMs: number
  // Distinct (backend, tool) label pairs before new ones are `other`.
  toolLabelLimit: number
}

const DEFAULT_OPTIONS: MetricsOptions = { maxTimeoutMs: 60_000, toolLabelLimit: 500 }

function createStreamGauges(registry: Registry): StreamGauges {
  const gauge = new Gauge({ name: 'mcp_gateway_sse_streams_active', help: 'SSE streams open now, by kind', labelNames: ['kind'], registers: [registry] })
  const of = (kind: StreamKind) => {
    const child = gauge.labels({ kind })
    child.set(0)
    return child
  }
  return { response: of(STREAM_KIND.response), listen: of(STREAM_KIND.listen), legacy_get: of(STREAM_KIND.legacyGet) }
}

export function createMetrics(registry: Registry, options: MetricsOptions = DEFAULT_OPTIONS): GatewayMetrics {
  const buckets = callBuckets(options.maxTimeoutMs)
  // The request path's series (path-series.ts: no label hashing per call).
  const requests = new PathCounter({ name: 'mcp_gateway_requests_total', help: 'MCP requests by method and outcome', labelNames: ['method', 'outcome'], registers: [registry] })
  const duration = new PathHistogram({
    name: 'mcp_gateway_request_duration_seconds',
    help: 'Time from request to final response, by method',
    labelNames: ['method'],
    buckets,
    registers: [registry],
  })
  const upstream = new PathCounter({ name: 'mcp_gateway_upstream_requests_total', help: 'Requests sent to backends by outcome', labelNames: ['backend', 'outcome'], registers: [registry] })
  const sseStreams = createStreamGauges(registry)
  let collectStatus: () => Array<{ name: string; up: boolean }> = () => []
  new Gauge({
    name: 'mcp_gateway_backend_up',
    help: '1 when the backend is reachable and probed, else 0',
    labelNames: ['backend'],
    registers: [registry],
    collect() {
      for (const status of collectStatus()) this.set({ backend: status.name }, status.up ? 1 : 0)
    },
  })
  return {
    observeRequest(method, outcome, seconds) {
      requests.inc(method, outcome)
      duration.observe(seconds, method)
    },
    observeUpstream(backend, outcome) {
      upstream.inc(backend, outcome)
    },
    sseStreams,
    setBackendStatus(collect) {
      collectStatus = collect
    },
    limits: createLimitMetrics(registry),
    tools: createToolMetrics(registry, { buckets, toolLabelLimit: options.toolLabelLimit }),
    upstream: createUpstreamMetrics(registry, buckets),
    sessions: createSessionMetrics(registry),
  }
}

// ---- Limits (README "Limits"): every refusal by limit and backend, and what the limits measure
// now (calls waiting per backend, reply bytes being buffered). Labels: LIMIT values, config names.
export const LIMIT = {
  queueFull: 'queue_full',
  queueTimeout: 'queue_timeout',
  replyBudget: 'reply_budget',
  stateReplay: 'state_replay',
  // The front door's (backend ""): README "Limits"
  badRequest: 'bad_request',
  headersTooLarge: 'headers_too_large',
  bodyTooLarge: 'body_too_large',
  bodyTimeout: 'body_timeout',
  connections: 'connections',
  streamsPerClient: 'streams_per_client',
  streamsTotal: 'streams_total',
  slowReader: 'slow_reader',
} as const
export type LimitName = (typeof LIMIT)[keyof typeof LIMIT]

export interface LimitGauges {
  // Calls waiting for a slot, per backend.
  queued(): Array<{ backend: string; calls: number }>
  // Bytes of backend replies buffered right now, across backends.
  replyBytes(): number
}

export interface LimitMetrics {
  countRefusal(limit: LimitName, backend: string): void
  setGauges(gauges: LimitGauges): void
}

function createLimitMetrics(registry: Registry): LimitMetrics {
  const refusals = new Counter({
    name: 'mcp_gateway_limit_refusals_total', help: 'Calls refused or failed by a gateway limit, by limit and backend', labelNames: ['limit', 'backend'], registers: [registry],
  })
  let gauges: LimitGauges = { queued: () => [], replyBytes: () => 0 }
  new Gauge({
    name: 'mcp_gateway_queued_calls', help: 'Calls waiting for a free slot toward a backend', labelNames: ['backend'], registers: [registry],
    collect() {
      for (const { backend, calls } of gauges.queued()) this.set({ backend }, calls)
    },
  })
  new Gauge({
    name: 'mcp_gateway_reply_bytes_in_flight', help: 'Bytes of backend replies being buffered now, across backends', registers: [registry],
    collect() {
      this.set(gauges.replyBytes())
    },
  })
  return {
    countRefusal(limit, backend) {
      refusals.inc({ limit, backend })
    },
    setGauges(next) {
      gauges = next
    },
  }
}
