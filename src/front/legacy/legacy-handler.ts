// POST /mcp, legacy era (2025-11-25 clients, LEGACY-*, LEGACY-16): initialize answered by the gateway,
// then every message of the session: its requests (local ones answered here, the others through
// the one Router), its notifications and its responses to server-initiated requests.
import { GatewayError } from '../../errors.ts'
import { isJsonObject, isJsonRpcId, type Classified, type JsonObject, type JsonRpcId, type JsonRpcNotification, type JsonRpcRequest } from '../../protocol/jsonrpc.ts'
import { toLegacyServerCapabilities } from '../../protocol/legacy/capabilities.ts'
import { SESSION_HEADER, getSessionHeader } from '../../protocol/legacy/era.ts'
import { buildInitializeResult, readInitializeParams } from '../../protocol/legacy/initialize.ts'
import { toValidRequest } from '../../protocol/legacy/request.ts'
import { toLegacyError } from '../../protocol/legacy/result.ts'
import { readClientResponse } from '../../protocol/legacy/server-requests.ts'
import type { SessionClaims } from '../../protocol/legacy/session-token.ts'
import { isLogLevel } from '../../protocol/meta.ts'
import type { ServerInfo } from '../../protocol/result.ts'
import { OUTCOME } from '../../observability/metrics.ts'
import { ANONYMOUS, type Principal } from '../../auth/principal.ts'
import type { SessionRegistry } from '../../shared-state/session-registry.ts'
import type { Access, McpPost } from '../mcp-handler.ts'
import type { ReplyStream } from '../reply-stream.ts'
import { answerKey, cancelKey } from './correlation.ts'
import { runLegacyCall, type LegacyCallDeps } from './legacy-call.ts'
import type { LegacySessions } from './sessions.ts'
import { changeSubscription, type SessionStreams } from './session-streams.ts'

export interface LegacyDeps extends LegacyCallDeps {
  sessions: LegacySessions
  registry: SessionRegistry
  streams: SessionStreams
  // What the gateway declares (server/discover's capabilities), mapped for InitializeResult.
  capabilities: () => JsonObject
  serverInfo: ServerInfo
}

interface SessionPost {
  post: McpPost
  stream: ReplyStream
  session: SessionClaims
  // The authenticated caller (AUTH-6, admitted before this); ANONYMOUS with authentication off.
  principal: Principal
}

export async function handleLegacyPost(deps: LegacyDeps, post: McpPost, stream: ReplyStream, classified: Classified, principal: Principal = ANONYMOUS): Promise<Access> {
  if (classified.kind === 'invalid') return refuse(stream, classified.id, new GatewayError('MCP_GATEWAY_RPC_INVALID_REQUEST', classified.reason), undefined)
  if (classified.kind === 'request' && classified.message.method === 'initialize') return initialize(deps, { post, stream, principal }, classified.message)
  const id = classified.kind === 'request' ? classified.message.id : undefined
  const method = classified.kind === 'response' ? 'response' : classified.message.method
  const session = await deps.sessions.openFrom(post.headers, principal.binding) // LEGACY-4, LEGACY-6
  if (session instanceof GatewayError) return refuse(stream, id, session, method)
  const at: SessionPost = { post, stream, session, principal }
  if (classified.kind === 'notification') return notified(deps, at, classified.message)
  if (classified.kind === 'response') return answered(deps, at)
  return requested(deps, at, classified.message)
}

// LEGACY-2: the gateway's own answer; the session id is minted here (LEGACY-4), bound to the caller.
async function initialize(deps: LegacyDeps, at: Omit<SessionPost, 'session'>, request: JsonRpcRequest): Promise<Access> {
  const { post, stream, principal } = at
  const presented = getSessionHeader(post.headers)
  if (presented !== undefined && (await deps.sessions.open(presented))?.principal === principal.binding) {
    return refuse(stream, request.id, new GatewayError('MCP_GATEWAY_SESSION_ALREADY_INITIALIZED'), request.method)
  }
  const check = readInitializeParams(request.params)
  if (!check.ok) return inBand(stream, request, new GatewayError('MCP_GATEWAY_PARAMS_INVALID', check.detail))
  const { token, claims } = deps.sessions.create(check.params, principal.binding)
  const capabilities = toLegacyServerCapabilities(deps.capabilities())
  post.res.setHeader(SESSION_HEADER, token)
  return done(stream, request, buildInitializeResult(claims.version, capabilities, deps.serverInfo))
}

async function requested(deps: LegacyDeps, at: SessionPost, request: JsonRpcRequest): Promise<Access> {
  switch (request.method) {
    case 'ping':
      return done(at.stream, request, {}) // LEGACY-12: answered here, never forwarded
    case 'logging/setLevel':
      return setLevel(deps, at, request)
    case 'resources/subscribe':
    case 'resources/unsubscribe': {
      const problem = await changeSubscription(deps, at.session, request)
      return problem === undefined ? done(at.stream, request, {}) : inBand(at.stream, request, problem)
    }
  }
  const state = await deps.registry.read(at.session.id)
  const valid = toValidRequest({ ...at.session, logLevel: state.logLevel }, request)
  if (valid === undefined) return inBand(at.stream, request, new GatewayError('MCP_GATEWAY_METHOD_NOT_FOUND', request.method))
  return runLegacyCall(deps, { ...at, valid })
}

// LEGACY-16: the level is session state; every later request of the session carries it as logLevel,
// and its GET stream filters the backends' logs outside any request by it.
async function setLevel(deps: LegacyDeps, at: SessionPost, request: JsonRpcRequest): Promise<Access> {
  if (!isJsonObject(deps.capabilities().logging)) return inBand(at.stream, request, new GatewayError('MCP_GATEWAY_METHOD_NOT_FOUND', `${request.method}: no backend offers logging`))
  const level = request.params?.level
  if (!isLogLevel(level)) return inBand(at.stream, request, new GatewayError('MCP_GATEWAY_LOG_LEVEL_INVALID', String(level)))
  await deps.registry.setLogLevel(at.session.id, level, at.session.expiresAt)
  deps.streams.setLogLevel(at.session.id, level)
  return done(at.stream, request, {})
}

// LEGACY-7: accepted → 202. Only a cancel needs work; initialized, roots/list_changed and
// progress need none (modern backends ask for roots per call; legacy backend sessions are shared).
async function notified(deps: LegacyDeps, at: SessionPost, notification: JsonRpcNotification): Promise<Access> {
  const requestId = notification.params?.requestId
  if (notification.method === 'notifications/cancelled' && isJsonRpcId(requestId)) {
    const reason = notification.params?.reason
    await deps.handOff.deliver(cancelKey(at.session.id, requestId), typeof reason === 'string' ? { reason } : {}) // CANCEL-5: unknown ids ignored
  }
  at.stream.finishEmpty(202)
  return { rpcMethod: notification.method, outcome: OUTCOME.ok, status: 202 }
}

// LEGACY-7: the client's answer to a server-initiated request goes to the call waiting for it.
async function answered(deps: LegacyDeps, at: SessionPost): Promise<Access> {
  const response = readClientResponse(at.post.body)
  if (response === undefined) return refuse(at.stream, undefined, new GatewayError('MCP_GATEWAY_RPC_INVALID_REQUEST', 'malformed response'), 'response')
  const delivered = await deps.handOff.deliver(answerKey(at.session.id, response.id), at.post.body as JsonObject)
  if (!delivered) return refuse(at.stream, undefined, new GatewayError('MCP_GATEWAY_SESSION_RESPONSE_UNEXPECTED', JSON.stringify(response.id)), 'response')
  at.stream.finishEmpty(202)
  return { rpcMethod: 'response', rpcId: response.id, outcome: OUTCOME.ok, status: 202 }
}

function done(stream: ReplyStream, request: JsonRpcRequest, result: JsonObject): Access {
  stream.finish({ jsonrpc: '2.0', id: request.id, result })
  return { rpcMethod: request.method, rpcId: request.id, outcome: OUTCOME.ok, status: 200 }
}

// A JSON-RPC error of a dispatched request: in band (HTTP 200), in 2025-11-25 form.
function inBand(stream: ReplyStream, request: JsonRpcRequest, err: GatewayError): Access {
  stream.finish({ jsonrpc: '2.0', id: request.id, error: toLegacyError(request.method, err.toJsonRpcError()) }, 200)
  return { rpcMethod: request.method, rpcId: request.id, outcome: OUTCOME.error, status: 200 }
}

// Decided before dispatch (session, version header): the catalogue's status and a JSON-RPC body.
function refuse(stream: ReplyStream, id: JsonRpcId | undefined, err: GatewayError, method: string | undefined): Access {
  const body = id === undefined ? { jsonrpc: '2.0', error: err.toJsonRpcError() } : { jsonrpc: '2.0', id, error: err.toJsonRpcError() }
  stream.finish(body, err.httpStatus, err.headers)
  return { rpcMethod: method, rpcId: id, outcome: OUTCOME.rejected, status: err.httpStatus }
}
