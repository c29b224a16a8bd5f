// server/discover: the gateway's own answer (DISC-1..5): its versions, the union of what its
// backends offer and it can deliver, its serverInfo, caching hints.
import type { JsonObject } from '../protocol/jsonrpc.ts'
import { isJsonObject } from '../protocol/jsonrpc.ts'
import { MODERN_VERSIONS } from '../protocol/version.ts'
import type { BackendSet } from './backend-set.ts'
import { GatewayError } from '../errors.ts'

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

// CAP-6: listChanged / subscribe are promises, so each is declared per kind only when the gateway
// can keep it: it runs subscriptions/listen and some backend declared the flag. A backend whose
// listen turns out to answer without a stream still keeps a declared listChanged: the gateway's
// refresh timer synthesizes its list changes (list-refresh.ts). Nothing else is synthesized: a
// kind no backend promises changes for gets no listChanged, even though catalog refetches happen.
function promised(backends: BackendSet, options: DiscoverOptions, capability: string, keys: readonly string[]): JsonObject {
  const declared: JsonObject = {}
  if (!options.listen) return declared
  for (const key of keys) if (flag(backends, capability, key)) declared[key] = true
  return declared
}

export function buildCapabilities(backends: BackendSet, options: DiscoverOptions): JsonObject {
  // Tools are always declared (possibly an empty list), so clients can rely on tools/list.
  const capabilities: JsonObject = { tools: promised(backends, options, 'tools', ['listChanged']) }
  if (has(backends, 'prompts')) capabilities.prompts = promised(backends, options, 'prompts', ['listChanged'])
  if (has(backends, 'resources')) capabilities.resources = promised(backends, options, 'resources', ['listChanged', 'subscribe'])
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

// Methods that exist only while some backend offers their capability (tools are always declared).
// completion/complete is not here: it exists wherever a backend owns its ref (completion-target.ts).
const REQUIRED_CAPABILITY: ReadonlyMap<string, string> = new Map([
  ['prompts/list', 'prompts'],
  ['prompts/get', 'prompts'],
  ['resources/list', 'resources'],
  ['resources/templates/list', 'resources'],
  ['resources/read', 'resources'],
])

// ERR-8: a method whose capability the gateway does not declare is not found (404).
export function requireCapability(backends: BackendSet, method: string, options: DiscoverOptions): void {
  const capability = REQUIRED_CAPABILITY.get(method)
  if (capability !== undefined && !isJsonObject(buildCapabilities(backends, options)[capability])) {
    throw new GatewayError('MCP_GATEWAY_METHOD_NOT_FOUND', `${method}: no backend offers ${capability}`)
  }
}
