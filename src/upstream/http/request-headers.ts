// The headers of a request to a 2026-07-28 HTTP backend (HTTP-9, HDR-10): the configured ones and
// the media types first (`staticHeaders`), then the mirrored headers as the backend must see them
// (its own view of the version, method and name), then the tool's Mcp-Param-* headers.
import type { JsonObject } from '../../protocol/jsonrpc.ts'
import { encodeHeaderValue, HEADER } from '../../protocol/headers.ts'
import { META } from '../../protocol/meta.ts'
import { getMethodSpec } from '../../protocol/methods.ts'
import { MODERN_VERSION } from '../../protocol/version.ts'
import type { UpstreamCall } from '../backend.ts'

export function modernRequestHeaders(staticHeaders: Readonly<Record<string, string>>, call: Pick<UpstreamCall, 'method' | 'params' | 'headers'>): Record<string, string> {
  const meta = call.params._meta as JsonObject | undefined
  const headers: Record<string, string> = { ...staticHeaders }
  headers[HEADER.protocolVersion] = String(meta?.[META.protocolVersion] ?? MODERN_VERSION)
  headers[HEADER.method] = call.method
  const nameParam = getMethodSpec(call.method)?.nameParam
  const name = nameParam === undefined ? undefined : call.params[nameParam]
  if (typeof name === 'string') headers[HEADER.name] = encodeHeaderValue(name)
  return call.headers ? { ...headers, ...call.headers } : headers
}
