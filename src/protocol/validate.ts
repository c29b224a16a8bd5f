// The modern request checks in their fixed order, decided before any response byte (SSE-8):
// required headers and _meta (META-1) → header/body equality (HDR-5, VER-1) → version (VER-2) →
// method (ERR-8) → log level (ERR-14). Pure.
import type { IncomingHttpHeaders } from 'node:http'
import { GatewayError } from '../errors.ts'
import type { JsonObject, JsonRpcRequest } from './jsonrpc.ts'
import { HEADER, checkStandardHeaders, getParamHeaders } from './headers.ts'
import { META, isLogLevel, validateMeta, type LogLevel } from './meta.ts'
import { getMethodSpec, type MethodSpec } from './methods.ts'
import { LEGACY_VERSION, MODERN_VERSIONS, isSupportedModernVersion } from './version.ts'

export interface ValidRequest {
  request: JsonRpcRequest
  params: JsonObject
  meta: JsonObject
  version: string
  spec: MethodSpec
  logLevel: LogLevel | undefined
  // Mcp-Param-* headers as sent (name lower-case, without the prefix), checked against the tool later.
  paramHeaders: ReadonlyMap<string, string>
  // A request of a 2025-11-25 session (LEGACY-16): it mirrors no headers (HDR-* are modern POST rules),
  // so the backend's Mcp-Param-* headers are built from the body alone.
  legacy?: true
}

function unsupportedVersion(requested: string): GatewayError {
  return new GatewayError('MCP_GATEWAY_VERSION_UNSUPPORTED', `${requested}; supported: ${MODERN_VERSIONS.join(', ')}`, {
    data: { supported: [...MODERN_VERSIONS], requested },
  })
}

// VER-7: a legacy initialize reaching the modern endpoint names the versions we serve.
export function rejectInitialize(request: JsonRpcRequest): GatewayError {
  const requested = request.params?.protocolVersion
  return unsupportedVersion(typeof requested === 'string' ? requested : LEGACY_VERSION)
}

export function validateModernRequest(headers: IncomingHttpHeaders, request: JsonRpcRequest): ValidRequest | GatewayError {
  // HDR-5: the version header must be there before anything else is judged.
  if (headers[HEADER.protocolVersion] === undefined) {
    return new GatewayError('MCP_GATEWAY_HEADER_MISMATCH', `missing ${HEADER.protocolVersion} header`)
  }
  const metaCheck = validateMeta(request.params) // META-1
  if (!metaCheck.ok) return new GatewayError('MCP_GATEWAY_META_MISSING', metaCheck.detail)
  const spec = getMethodSpec(request.method)
  const mismatch = checkStandardHeaders(headers, { method: request.method, params: request.params, version: metaCheck.version, spec })
  if (mismatch !== undefined) return new GatewayError('MCP_GATEWAY_HEADER_MISMATCH', mismatch) // HDR-5, VER-1
  if (!isSupportedModernVersion(metaCheck.version)) return unsupportedVersion(metaCheck.version) // VER-2
  if (spec === undefined) return new GatewayError('MCP_GATEWAY_METHOD_NOT_FOUND', request.method) // ERR-8
  const level = metaCheck.meta[META.logLevel]
  if (level !== undefined && !isLogLevel(level)) return new GatewayError('MCP_GATEWAY_LOG_LEVEL_INVALID', String(level)) // ERR-14
  const paramHeaders = getParamHeaders(headers)
  return { request, params: request.params ?? {}, meta: metaCheck.meta, version: metaCheck.version, spec, logLevel: level, paramHeaders }
}
