// W3C trace context on MCP messages (TRACE-1, TRACE-2): the `_meta` keys `traceparent`,
// `tracestate` and `baggage` (exempt from the prefix rule), read from a request's `_meta` or, when
// absent there, from the W3C HTTP headers of the same names; written into a backend request's
// `_meta` and, for HTTP backends, its headers. Pure.
import type { IncomingHttpHeaders } from 'node:http'
import type { JsonObject } from './jsonrpc.ts'

export const TRACE_KEYS = { traceparent: 'traceparent', tracestate: 'tracestate', baggage: 'baggage' } as const

export interface TraceContext {
  traceparent?: string
  tracestate?: string
  baggage?: string
}

export interface ParsedTraceparent {
  traceId: string
  spanId: string
  // The trace-flags byte (bit 0: sampled).
  flags: number
}

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}(?:-.*)?$/
const ZERO_TRACE_ID = '0'.repeat(32)
const ZERO_SPAN_ID = '0'.repeat(16)
// W3C Trace Context: a list member limit the gateway also applies to baggage (both are headers).
const MAX_VALUE_CHARS = 8192
const KEYS = Object.values(TRACE_KEYS)

// W3C Trace Context §3.2: version ff and all-zero ids are invalid; a future version may append
// fields. Checked in place: no match array, no substrings.
export function isValidTraceparent(value: string): boolean {
  if (!TRACEPARENT.test(value) || value.startsWith('ff')) return false
  if (value.startsWith('00') && value.length !== 55) return false
  return !value.startsWith(ZERO_TRACE_ID, 3) && !value.startsWith(ZERO_SPAN_ID, 36)
}

// The fields of a traceparent already checked by isValidTraceparent (readTraceContext admits no
// other): they sit at fixed offsets in every version.
export function traceparentFields(value: string): ParsedTraceparent {
  return { traceId: value.slice(3, 35), spanId: value.slice(36, 52), flags: Number.parseInt(value.slice(53, 55), 16) }
}

export function formatTraceparent(traceId: string, spanId: string, flags: number): string {
  return `00-${traceId}-${spanId}-${flags.toString(16).padStart(2, '0')}`
}

function textOf(value: unknown): string | undefined {
  const text = Array.isArray(value) ? value.join(',') : value
  return typeof text === 'string' && text !== '' && text.length <= MAX_VALUE_CHARS ? text : undefined
}

// TRACE-2: `_meta` first; the HTTP headers only when `_meta` carries no traceparent. Undefined when
// the request carries none of the three (the common case: two lookups each side).
export function readTraceContext(meta: JsonObject, headers: IncomingHttpHeaders): TraceContext | undefined {
  const fromMeta = meta[TRACE_KEYS.traceparent] !== undefined || meta[TRACE_KEYS.baggage] !== undefined
  const source: Record<string, unknown> = fromMeta ? meta : headers
  if (!fromMeta && headers[TRACE_KEYS.traceparent] === undefined && headers[TRACE_KEYS.baggage] === undefined) return undefined
  const traceparent = textOf(source[TRACE_KEYS.traceparent])
  const context: TraceContext = {
    traceparent: traceparent !== undefined && isValidTraceparent(traceparent) ? traceparent : undefined,
    tracestate: textOf(source[TRACE_KEYS.tracestate]),
    baggage: textOf(source[TRACE_KEYS.baggage]),
  }
  // tracestate means nothing without a valid traceparent (W3C Trace Context §3.3).
  if (context.traceparent === undefined) context.tracestate = undefined
  return context
}

// The backend's `_meta`: the three keys set from `context` (a key it lacks is removed, so a
// filtered baggage or an invalid traceparent is not passed on).
export function withTraceMeta(params: JsonObject, context: TraceContext): JsonObject {
  const meta: JsonObject = { ...(params._meta as JsonObject | undefined) }
  for (const key of KEYS) {
    if (context[key] !== undefined) meta[key] = context[key]
    else if (meta[key] !== undefined) delete meta[key]
  }
  return { ...params, _meta: meta }
}

// The same context as W3C HTTP headers, added to the backend request's own extra headers.
export function withTraceHeaders(headers: Record<string, string> | undefined, context: TraceContext): Record<string, string> {
  const out: Record<string, string> = { ...headers }
  for (const key of KEYS) if (context[key] !== undefined) out[key] = context[key]
  return out
}
