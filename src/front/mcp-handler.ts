// POST /mcp, modern era: classify → validate → dispatch → stream back → account (ARCHITECTURE
// "One request"). Knows node:http, not Fastify.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http'
import type { Logger } from '../observability/logger.ts'
import { GatewayError, statusFor } from '../errors.ts'
import { classifyMessage, type Classified, type JsonRpcId, type JsonRpcRequest } from '../protocol/jsonrpc.ts'
import { getProgressToken, hasModernMeta } from '../protocol/meta.ts'
import { rejectInitialize, validateModernRequest, type ValidRequest } from '../protocol/validate.ts'
import { resultMessageText } from '../protocol/result-splice.ts'
import { OUTCOME, type GatewayMetrics, type Outcome } from '../observability/metrics.ts'
import type { RouteReply, Router } from '../routing/router.ts'
import type { Principal } from '../auth/principal.ts'
import { isLegacyPost } from '../protocol/legacy/era.ts'
import { callerKey } from '../routing/call-scheduler.ts'
import { clientFields, errorBody, recordAccess, targetFields, type Access } from './access.ts'
import { ReplyStream, type StreamQueueLimit } from './reply-stream.ts'
import type { InFlight, InFlightRequest } from '../lifecycle/in-flight.ts'
import type { Tracing } from '../observability/tracing.ts'
import { FrontCall } from './front-call.ts'
import { clockMs, secondsSince } from '../observability/clock.ts'

export interface McpHandlerDeps {
  router: Router
  metrics: GatewayMetrics
  // The bound on a stream's write queue (README "Limits"); absent: unbounded.
  streamLimit?: StreamQueueLimit
  // Long-lived streams (subscriptions/listen) are handed to this when configured, with the caller's
  // key (streams per client); a refusal (too many streams) comes back as the error.
  listen?: (valid: ValidRequest, stream: ReplyStream, res: ServerResponse, client: string) => Promise<Outcome | GatewayError>
  // 2025-11-25 sessions on the same endpoint (LEGACY-1, src/front/legacy/); absent: modern only.
  legacy?: (post: McpPost, stream: ReplyStream, classified: Classified, principal?: Principal) => Promise<Access>
  // Requests being answered, cut with an error event at the shutdown deadline (src/lifecycle/drain.ts).
  inFlight?: InFlight
  // The access line's client address from X-Forwarded-For (behind a load balancer).
  trustProxy?: boolean
  // Trace context and spans (README "Tracing"); absent: none passed on.
  tracing?: Tracing
}

export interface McpPost {
  headers: IncomingHttpHeaders
  body: unknown
  res: ServerResponse
  log: Logger
  reqId: string
  // The request target, and the client's address (X-Forwarded-For's with trustProxy): the key of
  // per-client limits while the caller is anonymous.
  url?: string
  remoteAddress?: string
  // The caller, as the admission guard found it (src/front/guards.ts); absent with auth off.
  principal?: Principal
}

export type { Access } from './access.ts'

// Never rejects: what would escape (a bug in the accounting itself) is logged here.
export async function handleMcpPost(deps: McpHandlerDeps, post: McpPost): Promise<void> {
  try {
    const exchange = new Exchange(deps, post)
    // Bodies may hold secrets (tool arguments): only ever at debug.
    post.log.debug({ reqId: post.reqId, body: post.body }, 'mcp request body')
    const entry = deps.inFlight?.add(exchange)
    let access: Access
    try {
      access = await answer(deps, post, exchange.stream)
    } catch (err) {
      access = failInternally(post, exchange.stream, err)
    }
    if (entry !== undefined) deps.inFlight?.delete(entry)
    exchange.account(access)
  } catch (err) {
    post.log.error({ reqId: post.reqId, err }, 'unhandled error after the MCP handler')
  }
}

// The request's JSON-RPC id when its body has a readable one.
function bodyId(body: unknown): JsonRpcId | undefined {
  const id = (body as { id?: unknown } | undefined)?.id
  return typeof id === 'string' || typeof id === 'number' ? id : undefined
}

function bodyMethod(body: unknown): string | undefined {
  const method = (body as { method?: unknown } | undefined)?.method
  return typeof method === 'string' ? method : undefined
}

// One request being answered: its stream, its one access line (the answer's, or the shutdown
// cut's when that came first) and, at the shutdown deadline, its cut: the request's last message
// is a JSON-RPC error (an SSE event when the stream is open), never a silent cut.
class Exchange implements InFlightRequest {
  readonly stream: ReplyStream
  readonly #deps: McpHandlerDeps
  readonly #post: McpPost
  readonly #started = clockMs()
  #accounted = false

  constructor(deps: McpHandlerDeps, post: McpPost) {
    this.#deps = deps
    this.#post = post
    this.stream = new ReplyStream(post.res, deps.metrics.sseStreams.response, deps.streamLimit)
  }

  get summary(): InFlightRequest['summary'] {
    return { reqId: this.#post.reqId, rpcMethod: bodyMethod(this.#post.body) }
  }

  cut(reason: string): void {
    const error = new GatewayError('MCP_GATEWAY_SERVER_SHUTTING_DOWN', reason)
    const status = statusFor(error, this.stream)
    const id = bodyId(this.#post.body)
    this.stream.finish(errorBody(id, error), status)
    this.account({ rpcMethod: bodyMethod(this.#post.body), rpcId: id, code: error.code, outcome: OUTCOME.error, status })
  }

  account(access: Access): void {
    if (this.#accounted) return
    this.#accounted = true
    const post = this.#post
    const client = clientFields(post.headers, post.remoteAddress, this.#deps.trustProxy === true)
    recordAccess(this.#deps.metrics, post.log, post.reqId, access, secondsSince(this.#started), client)
  }
}

// Answers at once what needs no backend; the rest is a promise.
function answer(deps: McpHandlerDeps, post: McpPost, stream: ReplyStream): Access | Promise<Access> {
  const classified = classifyMessage(post.body)
  // LEGACY-1: initialize without modern _meta, or an Mcp-Session-Id, is the legacy era's.
  if (deps.legacy && isLegacyPost(post.headers, classified)) return deps.legacy(post, stream, classified, post.principal)
  if (classified.kind === 'notification') {
    stream.finishEmpty(202) // HTTP-5, HTTP-8: accepted, nothing to do
    return { rpcMethod: 'notification', outcome: OUTCOME.ok, status: 202 }
  }
  if (classified.kind !== 'request') {
    const detail = classified.kind === 'response' ? 'clients must not send responses' : classified.reason
    return reject(stream, classified.id, new GatewayError('MCP_GATEWAY_RPC_INVALID_REQUEST', detail), undefined) // HTTP-4
  }
  const request = classified.message
  if (request.method === 'initialize' && !hasModernMeta(request.params)) {
    return reject(stream, request.id, rejectInitialize(request), request.method) // VER-7
  }
  const valid = validateModernRequest(post.headers, request)
  if (valid instanceof GatewayError) return reject(stream, request.id, valid, request.method)
  if (request.method === 'subscriptions/listen' && deps.listen) return listen(deps.listen, post, stream, valid)
  return dispatch(deps, post, stream, { valid, principal: post.principal })
}

async function listen(serve: NonNullable<McpHandlerDeps['listen']>, post: McpPost, stream: ReplyStream, valid: ValidRequest): Promise<Access> {
  const { request } = valid
  const outcome = await serve(valid, stream, post.res, callerKey(post.principal, post.remoteAddress))
  if (outcome instanceof GatewayError) return reject(stream, request.id, outcome, request.method)
  return { rpcMethod: request.method, rpcId: request.id, outcome, status: 200 }
}

// A bug must not leave the client hanging: it gets -32603 (or its stream ends), and the error is
// logged once with its stack.
function failInternally(post: McpPost, stream: ReplyStream, err: unknown): Access {
  post.log.error({ reqId: post.reqId, err }, 'unhandled error in the MCP handler')
  const id = bodyId(post.body)
  const error = new GatewayError('MCP_GATEWAY_INTERNAL')
  const status = statusFor(error, stream)
  stream.finish(errorBody(id, error), status)
  return { rpcId: id, code: error.code, outcome: OUTCOME.error, status }
}

function reject(stream: ReplyStream, id: JsonRpcId | undefined, err: GatewayError, method: string | undefined): Access {
  stream.finish(errorBody(id, err), err.httpStatus, err.headers)
  return { rpcMethod: method, rpcId: id, code: err.code, rpcCode: err.rpcCode, outcome: OUTCOME.rejected, status: err.httpStatus }
}

async function dispatch(deps: McpHandlerDeps, post: McpPost, stream: ReplyStream, call: { valid: ValidRequest; principal?: Principal }): Promise<Access> {
  const { valid, principal } = call
  const request: JsonRpcRequest = valid.request
  const ctx = new FrontCall({ res: post.res, stream, principal, client: post.remoteAddress, progressToken: getProgressToken(valid.meta), logLevel: valid.logLevel })
  post.res.on('close', ctx.onClose)
  ctx.trace = deps.tracing?.begin(valid, post.headers)
  const reply = await deps.router.handle(valid, ctx)
  ctx.trace?.finish(reply)
  post.res.off('close', ctx.onClose)
  const access: Access = { rpcMethod: request.method, rpcId: request.id, backend: ctx.backend, ...targetFields(request.method, ctx.tool), outcome: OUTCOME.ok, status: 200 }
  if (ctx.aborted || stream.gone) return { ...access, outcome: OUTCOME.cancelled, status: 499 }
  return write(stream, request.id, reply, access)
}

function write(stream: ReplyStream, id: JsonRpcId, reply: RouteReply, access: Access): Access {
  if (reply.ok) {
    // A spliced result is passed on as text, under the client's own id.
    if (reply.json !== undefined) stream.finishText(resultMessageText(id, reply.json))
    else stream.finish({ jsonrpc: '2.0', id, result: reply.result })
    // The tool ran and reported a failure: not an ok call.
    return reply.toolError === true ? { ...access, outcome: OUTCOME.toolError } : access
  }
  const status = statusFor(reply, stream)
  stream.finish({ jsonrpc: '2.0', id, error: reply.error }, status, stream.committed ? undefined : reply.headers)
  const failed = reply.origin === 'gateway' && reply.error.data !== undefined && access.backend !== undefined
  return { ...access, code: reply.code, rpcCode: reply.error.code, outcome: failed ? OUTCOME.upstreamFailure : OUTCOME.error, status }
}
