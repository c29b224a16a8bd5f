// Mirrored request headers (HDR-*, VER-1): encoding, decoding and header/body matching. Pure.
import type { IncomingHttpHeaders } from 'node:http'
import type { JsonObject } from './jsonrpc.ts'
import type { MethodSpec } from './methods.ts'

export const HEADER = {
  protocolVersion: 'mcp-protocol-version',
  method: 'mcp-method',
  name: 'mcp-name',
  paramPrefix: 'mcp-param-',
} as const

const SENTINEL_START = '=?base64?'
const SENTINEL_END = '?='
// HDR-3: a value that can go as-is: visible ASCII and inner spaces, no edge whitespace.
const PLAIN_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

function looksEncoded(value: string): boolean {
  return value.startsWith(SENTINEL_START) && value.endsWith(SENTINEL_END)
}

// HDR-3: encode a string, integer or boolean for a header.
export function encodeHeaderValue(value: string | number | boolean): string {
  const text = String(value)
  if (PLAIN_VALUE.test(text) && !looksEncoded(text)) return text
  return SENTINEL_START + Buffer.from(text, 'utf8').toString('base64') + SENTINEL_END
}

// HDR-4: decode a header value; undefined when it holds invalid characters or bad Base64.
export function decodeHeaderValue(raw: string): string | undefined {
  if (!looksEncoded(raw)) return PLAIN_VALUE.test(raw) ? raw : undefined
  const payload = raw.slice(SENTINEL_START.length, raw.length - SENTINEL_END.length)
  if (payload.length % 4 !== 0 || !BASE64.test(payload)) return undefined
  const bytes = Buffer.from(payload, 'base64')
  const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
  try {
    return text.decode(bytes)
  } catch {
    return undefined
  }
}

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}

// HDR-6: integers compare numerically; everything else as its string form.
export function headerMatchesValue(decoded: string, value: unknown): boolean {
  if (typeof value === 'number') return decoded.trim() !== '' && Number(decoded) === value
  if (typeof value === 'boolean') return decoded === String(value)
  return typeof value === 'string' && decoded === value
}

function checkHeader(headers: IncomingHttpHeaders, header: string, expected: unknown): string | undefined {
  const raw = single(headers, header)
  if (raw === undefined) return `missing ${header} header`
  const decoded = decodeHeaderValue(raw)
  if (decoded === undefined) return `${header} header has invalid characters`
  if (!headerMatchesValue(decoded, expected)) return `${header} header does not match the body`
  return undefined
}

export interface MirroredRequest {
  method: string
  params: JsonObject | undefined
  version: string
  spec: MethodSpec | undefined
}

// HDR-1, HDR-2, HDR-5, VER-1: the standard headers must be present and match the body.
export function checkStandardHeaders(headers: IncomingHttpHeaders, request: MirroredRequest): string | undefined {
  const version = single(headers, HEADER.protocolVersion)
  if (version === undefined) return `missing ${HEADER.protocolVersion} header`
  if (version !== request.version) return `${HEADER.protocolVersion} header does not match _meta protocolVersion`
  const method = single(headers, HEADER.method)
  if (method === undefined) return `missing ${HEADER.method} header`
  if (method !== request.method) return `${HEADER.method} header does not match the body method`
  const nameParam = request.spec?.nameParam
  if (nameParam === undefined) return undefined
  return checkHeader(headers, HEADER.name, request.params?.[nameParam])
}

// Collect Mcp-Param-* headers as sent (for HDR-7 validation and HDR-9 forwarding).
const NO_PARAM_HEADERS: ReadonlyMap<string, string> = new Map()

export function getParamHeaders(headers: IncomingHttpHeaders): ReadonlyMap<string, string> {
  let found: Map<string, string> | undefined
  for (const name in headers) {
    if (!name.startsWith(HEADER.paramPrefix)) continue
    const value = headers[name]
    if (value === undefined) continue
    found ??= new Map()
    found.set(name.slice(HEADER.paramPrefix.length), Array.isArray(value) ? value.join(', ') : value)
  }
  return found ?? NO_PARAM_HEADERS
}

export { checkHeader as checkMirroredHeader }
