// HDR-12: a backend refusing a tools/call's Mcp-Param-* headers (-32020) has most likely changed
// the tool's schema since the gateway listed it. The tool is looked up again (its list refetched
// unless younger than limits.listRefreshMs, CACHE-9's bound) and, when the current definition
// calls for other headers, the call is sent once more with them. The backend refused before
// running the tool, so sending again cannot run it twice.
import { RPC } from '../errors.ts'
import type { ValidRequest } from '../protocol/validate.ts'
import type { UpstreamReply } from '../upstream/backend.ts'
import { findItem, type Catalog } from './catalog.ts'
import type { Forward } from './call-context.ts'
import { listKind } from './list-kinds.ts'
import type { ToolHeaders } from './tool-headers.ts'

const TOOLS = listKind('tools')

export interface HeaderRetry {
  catalog: Catalog
  toolHeaders: ToolHeaders
  // Sends the call again with these Mcp-Param-* headers (and nothing else changed).
  resend: (headers: Record<string, string>) => Promise<UpstreamReply>
}

export function isHeaderRefusal(valid: ValidRequest, reply: UpstreamReply): boolean {
  return !reply.ok && reply.error.code === RPC.headerMismatch && valid.request.method === 'tools/call'
}

const sameHeaders = (a: Record<string, string> | undefined, b: Record<string, string>): boolean =>
  JSON.stringify(a ?? {}) === JSON.stringify(b)

// The headers the tool's current definition calls for, when they differ from those sent; the list
// is refetched only when the cached one still agrees with what was sent.
async function currentHeaders(deps: HeaderRetry, valid: ValidRequest, forward: Forward, name: string): Promise<Record<string, string> | undefined> {
  const backend = forward.entry.backend
  let list = deps.catalog.cached(backend, TOOLS)
  for (let fetched = false; list !== undefined; fetched = true) {
    const tool = findItem(list, 'name', name)
    const headers = tool && deps.toolHeaders.forResend(valid, tool)
    if (headers !== undefined && !sameHeaders(forward.headers, headers)) return headers
    if (fetched) return undefined
    list = await deps.catalog.refresh(backend, TOOLS, list).catch(() => undefined)
  }
  return undefined
}

// The backend's reply to the call sent again, or `refused` when nothing calls for sending it again.
export async function retryHeaderRefusal(deps: HeaderRetry, valid: ValidRequest, forward: Forward, refused: UpstreamReply): Promise<UpstreamReply> {
  const name = forward.params.name
  if (typeof name !== 'string') return refused
  const headers = await currentHeaders(deps, valid, forward, name)
  return headers === undefined ? refused : deps.resend(headers)
}
