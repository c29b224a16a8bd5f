// Replies from a 2025-11-25 HTTP backend: JSON or SSE (priming events skipped by the decoder),
// request-scoped notifications relayed as they arrive, and server→client requests arriving on the
// POST stream handed to `onServerRequest` (LEGACY-C5). Also the params a legacy backend receives.
import type { Dispatcher } from 'undici'
import { RPC } from '../../errors.ts'
import { isJsonObject, type JsonObject, type JsonRpcErrorObject, type JsonRpcId, type JsonRpcNotification } from '../../protocol/jsonrpc.ts'
import { getMeta } from '../../protocol/meta.ts'
import type { ServerAnswer, UpstreamCall, UpstreamReply } from '../backend.ts'
import { BadReplyError, isEventStream, isJsonContent, parseJsonBody, readSse } from '../http/reply-reader.ts'

export interface LegacyReplyOptions {
  id: JsonRpcId
  onNotification: ((notification: JsonRpcNotification) => void) | undefined
  onServerRequest: (request: JsonObject) => void
  maxEventChars: number
}

const RESERVED_META_PREFIX = 'io.modelcontextprotocol/'

export function isServerRequest(message: JsonObject): boolean {
  return typeof message.method === 'string' && 'id' in message
}

// The modern per-request keys mean nothing to a legacy server: keep progressToken and the rest.
export function toLegacyParams(params: JsonObject): JsonObject {
  const meta = getMeta(params)
  if (meta === undefined) return params
  const kept = Object.fromEntries(Object.entries(meta).filter(([key]) => !key.startsWith(RESERVED_META_PREFIX)))
  const { _meta: _dropped, ...rest } = params
  return Object.keys(kept).length > 0 ? { ...rest, _meta: kept } : rest
}

// LEGACY-C1 with G8 option B: the gateway offers what it can bridge to a modern client; whether a
// given request is answered depends on the capabilities that client declares (MRTR-4, CAP-2).
export const LEGACY_CLIENT_CAPABILITIES: JsonObject = Object.freeze({ elicitation: { form: {}, url: {} }, sampling: {}, roots: {} })

const BRIDGED_METHODS: ReadonlySet<string> = new Set(['elicitation/create', 'sampling/createMessage', 'roots/list'])

// LEGACY-C5: the local answer: ping → {}; sampling, elicitation, roots and anything else refused.
function answerLocally(method: unknown): ServerAnswer {
  if (method === 'ping') return { result: {} }
  return { error: { code: RPC.methodNotFound, message: `${String(method)} is not supported by the gateway yet` } }
}

// LEGACY-C5: the JSON-RPC response to a backend request that belongs to no call.
export function answerServerRequest(request: JsonObject): JsonObject {
  return { jsonrpc: '2.0', id: request.id, ...answerLocally(request.method) }
}

// LEGACY-C5, G8: the answer to a backend request made during a call: elicitation, sampling and
// roots go to `bridge` when the call has one; the rest is answered locally. Never rejects: a
// failing bridge becomes an internal error for the backend.
export async function answerCallRequest(request: JsonObject, bridge: UpstreamCall['onServerRequest']): Promise<ServerAnswer> {
  const method = request.method
  if (bridge === undefined || typeof method !== 'string' || !BRIDGED_METHODS.has(method)) return answerLocally(method)
  const params = isJsonObject(request.params) ? request.params : undefined
  try {
    return await bridge(params === undefined ? { method } : { method, params })
  } catch (err) {
    return { error: { code: RPC.internalError, message: `the gateway could not relay ${method}: ${err instanceof Error ? err.message : String(err)}` } }
  }
}

function asReply(message: JsonObject, id: JsonRpcId): UpstreamReply | undefined {
  if (message.id !== id && !(message.id === null && 'error' in message)) return undefined
  if (isJsonObject(message.result)) return { ok: true, result: message.result }
  if (isJsonObject(message.error) && typeof message.error.code === 'number') {
    return { ok: false, error: message.error as unknown as JsonRpcErrorObject }
  }
  throw new BadReplyError('backend response has neither a result nor an error')
}

// Returns the final reply when `message` is it; otherwise routes the message and returns undefined.
function route(message: JsonObject, options: LegacyReplyOptions): UpstreamReply | undefined {
  if (isServerRequest(message)) {
    options.onServerRequest(message)
    return undefined
  }
  if (typeof message.method === 'string') {
    options.onNotification?.(message as unknown as JsonRpcNotification)
    return undefined
  }
  return asReply(message, options.id)
}

// Resolves at the final reply; the rest of the stream is drained, not delivered (PROG-3).
function readStream(body: Dispatcher.ResponseData['body'], options: LegacyReplyOptions): Promise<UpstreamReply | undefined> {
  let found: UpstreamReply | undefined
  return new Promise((resolve, reject) => {
    const sink = (message: JsonObject): boolean => {
      if (found) return false
      found = route(message, options)
      if (found) resolve(found)
      return false
    }
    readSse(body, sink, options.maxEventChars).then(() => resolve(found), (err: unknown) => {
      if (!found) reject(err)
    })
  })
}

async function readJson(body: Dispatcher.ResponseData['body'], options: LegacyReplyOptions): Promise<UpstreamReply | undefined> {
  for (const message of parseJsonBody(await body.text())) {
    const reply = route(message, options)
    if (reply) return reply
  }
  return undefined
}

export async function readLegacyReply(response: Dispatcher.ResponseData, options: LegacyReplyOptions): Promise<UpstreamReply> {
  const header = response.headers['content-type']
  const type = Array.isArray(header) ? header[0] : header
  let reply: UpstreamReply | undefined
  if (isEventStream(type)) reply = await readStream(response.body, options)
  else if (isJsonContent(type) || response.statusCode >= 400) {
    reply = await readJson(response.body, options).catch((err: unknown) => {
      if (response.statusCode < 400) throw err
      return undefined
    })
  } else await response.body.dump()
  if (reply) return reply
  throw new BadReplyError(`HTTP ${response.statusCode} without a JSON-RPC response`)
}
