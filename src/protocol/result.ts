// Result stamping toward modern clients (RPC-4/6, META-5, CACHE-1/3/12). Pure.
import type { JsonObject } from './jsonrpc.ts'
import { isJsonObject } from './jsonrpc.ts'
import { META } from './meta.ts'

export const RESULT_TYPE = { complete: 'complete', inputRequired: 'input_required' } as const
// RPC-5: a resultType other than these is invalid to a client (the gateway advertises no extension
// that adds one); one that is absent, or not a string, defaults to complete (RPC-6).
export function isUnknownResultType(value: unknown): boolean {
  return typeof value === 'string' && value !== RESULT_TYPE.complete && value !== RESULT_TYPE.inputRequired
}

export const CACHE_SCOPE = { public: 'public', private: 'private' } as const
export type CacheScope = (typeof CACHE_SCOPE)[keyof typeof CACHE_SCOPE]

export interface ServerInfo {
  name: string
  version: string
}

export interface CacheHints {
  ttlMs: number
  cacheScope: CacheScope
}

// CACHE-4: absent or negative = 0; non-integers are floored (CACHE-3).
export function readCacheHints(result: JsonObject): CacheHints {
  const ttl = typeof result.ttlMs === 'number' && Number.isFinite(result.ttlMs) ? Math.max(0, Math.floor(result.ttlMs)) : 0
  // CACHE-12: a result without hints (legacy) counts as private.
  const cacheScope = result.cacheScope === CACHE_SCOPE.public ? CACHE_SCOPE.public : CACHE_SCOPE.private
  return { ttlMs: ttl, cacheScope }
}

// CACHE-12: shortest TTL; private if any part is private.
export function mergeCacheHints(parts: CacheHints[], fallback: CacheHints): CacheHints {
  if (parts.length === 0) return fallback
  let ttlMs = Infinity
  let cacheScope: CacheScope = CACHE_SCOPE.public
  for (const part of parts) {
    ttlMs = Math.min(ttlMs, part.ttlMs)
    if (part.cacheScope === CACHE_SCOPE.private) cacheScope = CACHE_SCOPE.private
  }
  return { ttlMs, cacheScope }
}

// RPC-6 and META-5: resultType defaults to complete; the gateway's serverInfo replaces the backend's.
export function stampResult(result: JsonObject, serverInfo: ServerInfo): JsonObject {
  const meta = isJsonObject(result._meta) ? result._meta : undefined
  const resultType = typeof result.resultType === 'string' ? result.resultType : RESULT_TYPE.complete
  return { ...result, resultType, _meta: { ...meta, [META.serverInfo]: serverInfo } }
}

// CACHE-1: cacheable results always carry both hints.
export function stampCacheHints(result: JsonObject): JsonObject {
  if (result.resultType === RESULT_TYPE.inputRequired) return result // CACHE-2
  const hints = readCacheHints(result)
  return { ...result, ttlMs: hints.ttlMs, cacheScope: hints.cacheScope }
}
