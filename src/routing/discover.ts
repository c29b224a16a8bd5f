// server/discover: the gateway's own answer (DISC-1..5, G3): its versions, the union of what its
// backends offer and it can deliver, its serverInfo, caching hints.
import type { JsonObject } from '../protocol/jsonrpc.ts'
import { isJsonObject } from '../protocol/jsonrpc.ts'
import { MODERN_VERSIONS } from '../protocol/version.ts'
import type { BackendSet } from './backend-set.ts'

export const DISCOVER_TTL_MS = 30_000

export interface DiscoverOptions {
  // listChanged / subscribe can be promised only when the gateway runs subscriptions/listen.
  listen: boolean
}

function has(backends: BackendSet, capability: string): boolean {
  return backends.entries.some((e) => isJsonObject(e.backend.capabilities()[capability]))
}

function flag(backends: BackendSet, capability: string, key: string): boolean {
  return backends.entries.some((e) => {
    const cap = e.backend.capabilities()[capability]
    return isJsonObject(cap) && cap[key] === true
  })
}

export function buildCapabilities(backends: BackendSet, options: DiscoverOptions): JsonObject {
  // Tools are always declared (possibly an empty list), so clients can rely on tools/list.
  const capabilities: JsonObject = { tools: options.listen ? { listChanged: true } : {} }
  if (has(backends, 'prompts')) capabilities.prompts = options.listen ? { listChanged: true } : {}
  if (has(backends, 'resources')) {
    capabilities.resources = options.listen ? { listChanged: true, subscribe: flag(backends, 'resources', 'subscribe') } : {}
  }
  if (has(backends, 'completions')) capabilities.completions = {}
  if (has(backends, 'logging')) capabilities.logging = {} // LOG-4: we forward backend logs
  return capabilities
}

export function buildDiscoverResult(backends: BackendSet, options: DiscoverOptions): JsonObject {
  return {
    supportedVersions: [...MODERN_VERSIONS],
    capabilities: buildCapabilities(backends, options),
    ttlMs: DISCOVER_TTL_MS,
    cacheScope: 'public',
  }
}
