// Gateway-owned request ids and progress tokens for one shared stdio channel (RPC-2, PROG-7).
// Clients' ids and tokens collide across users, so every call toward the child gets fresh ones
// and the client's own token is kept aside to be restored on the way back. Pure, no I/O.
import { randomUUID } from 'node:crypto'
import type { JsonObject, JsonRpcId } from '../../protocol/jsonrpc.ts'
import { getMeta, getProgressToken } from '../../protocol/meta.ts'

export interface IdAllocator {
  requestId(): string
  progressToken(): string
}

// `prefix` defaults to a random one, so two backends (or two gateways) never share a space.
export function createIdAllocator(prefix = `gw-${randomUUID().slice(0, 8)}`): IdAllocator {
  let requests = 0
  let tokens = 0
  return {
    requestId: () => `${prefix}-${++requests}`,
    progressToken: () => `${prefix}-p${++tokens}`,
  }
}

export interface TokenRewrite {
  params: JsonObject
  // The caller's own token (string or integer, as sent) and the one that replaced it.
  original?: JsonRpcId
  token?: string
}

// PROG-7: replace the caller's progressToken with `token`; params without one are left alone.
export function rewriteProgressToken(params: JsonObject, nextToken: () => string): TokenRewrite {
  const meta = getMeta(params)
  const original = getProgressToken(meta)
  if (meta === undefined || original === undefined) return { params }
  const token = nextToken()
  return { params: { ...params, _meta: { ...meta, progressToken: token } }, original, token }
}

// Puts the caller's token back into a progress notification's params.
export function restoreProgressToken(params: JsonObject, original: JsonRpcId): JsonObject {
  return { ...params, progressToken: original }
}
