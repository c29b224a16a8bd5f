// FEAT-5: a completion goes to the owner of the prompt or resource template its ref names, whether
// or not that backend declared `completions`: real servers answer it without declaring it. ERR-8:
// without a declared capability the method exists only through an owner, so a ref no backend owns
// (or no usable ref at all) is "method not found" (404 -32601); once some backend declares it, an
// unknown ref is what it is elsewhere (-32602, ERR-9/10).
import { GatewayError, type ErrorCode } from '../errors.ts'
import type { JsonObject } from '../protocol/jsonrpc.ts'
import { isJsonObject } from '../protocol/jsonrpc.ts'
import type { BackendEntry, BackendSet } from './backend-set.ts'
import { resolveName, resolveUri, type ResolveDeps } from './resolve.ts'
import type { UpstreamParamsBuilder } from './upstream-params.ts'

export interface CompletionDeps extends ResolveDeps {
  backends: BackendSet
  params: UpstreamParamsBuilder
  // AUTH-9: throws when the caller may not use the prompt or resource the ref names.
  allow: (kind: 'prompts' | 'resources', name: string) => void
}

export interface CompletionTarget {
  entry: BackendEntry
  params: JsonObject
}

// Refusals that mean "no backend owns this ref".
const UNOWNED: ReadonlySet<ErrorCode> = new Set(['MCP_GATEWAY_PROMPT_UNKNOWN', 'MCP_GATEWAY_RESOURCE_UNKNOWN', 'MCP_GATEWAY_PARAMS_INVALID'])

export async function resolveCompletion(deps: CompletionDeps, p: JsonObject): Promise<CompletionTarget> {
  try {
    return await resolveRef(deps, p)
  } catch (err) {
    if (err instanceof GatewayError && UNOWNED.has(err.code) && deps.backends.offering('completions').length === 0) {
      throw new GatewayError('MCP_GATEWAY_METHOD_NOT_FOUND', `completion/complete: no backend owns the ref (${err.message})`, { cause: err })
    }
    throw err
  }
}

async function resolveRef(deps: CompletionDeps, p: JsonObject): Promise<CompletionTarget> {
  const ref = isJsonObject(p.ref) ? p.ref : undefined
  if (ref?.type === 'ref/prompt') {
    const name = requireString(ref.name, 'ref.name')
    deps.allow('prompts', name)
    const target = await resolveName(deps, { kind: 'prompts', name })
    return { entry: target.entry, params: deps.params.forCall(target.entry.backend, p, { ref: { ...ref, name: target.name } }) }
  }
  if (ref?.type === 'ref/resource') {
    const uri = requireString(ref.uri, 'ref.uri')
    deps.allow('resources', uri)
    const entry = await resolveUri(deps, uri)
    return { entry, params: deps.params.forCall(entry.backend, p) }
  }
  throw new GatewayError('MCP_GATEWAY_PARAMS_INVALID', 'ref must be a ref/prompt or ref/resource')
}

export function requireString(value: unknown, field: string): string {
  if (typeof value !== 'string') throw new GatewayError('MCP_GATEWAY_PARAMS_INVALID', `${field} must be a string`)
  return value
}
