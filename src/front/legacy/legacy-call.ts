// One routed request of a legacy session (LEGACY-16): through the same Router as every modern request.
// An input_required result becomes server-initiated requests to the client on this POST's stream,
// and the call is retried with the answers, round after round, until it is complete; a legacy
// client never sees input_required. The client's notifications/cancelled or its disconnect cancel
// the call upstream; a round the client does not finish also ends a held bridge call at once.
import { randomBytes } from 'node:crypto'
import type { Principal } from '../../auth/principal.ts'
import { GatewayError } from '../../errors.ts'
import { clipForLog } from '../access.ts'
import type { JsonRpcNotification } from '../../protocol/jsonrpc.ts'
import { withInputResponses } from '../../protocol/legacy/request.ts'
import { toLegacyError, toLegacyResult } from '../../protocol/legacy/result.ts'
import { readInputRound } from '../../protocol/legacy/server-requests.ts'
import type { SessionClaims } from '../../protocol/legacy/session-token.ts'
import { getProgressToken } from '../../protocol/meta.ts'
import type { ValidRequest } from '../../protocol/validate.ts'
import { OUTCOME } from '../../observability/metrics.ts'
import type { CallContext, RouteReply, Router } from '../../routing/router.ts'
import type { Tracing } from '../../observability/tracing.ts'
import type { HandOff } from '../../shared-state/hand-off.ts'
import type { Access, McpPost } from '../mcp-handler.ts'
import { targetFields } from '../access.ts'
import { isDeliverable, type StreamFilter } from '../notifications.ts'
import type { ReplyStream } from '../reply-stream.ts'
import { askClient, cancelKey, type AskOptions, type Asked } from './correlation.ts'
import { LegacyStream } from './legacy-stream.ts'

// A backend that keeps asking is cut off (each round is a full client round trip).
export const MAX_INPUT_ROUNDS = 16

export interface LegacyCallDeps {
  router: Router
  handOff: HandOff
  clientAnswerTimeoutMs: number
  // Trace context and spans (README "Tracing"); absent: none passed on.
  tracing?: Tracing
}

export interface LegacyCall {
  post: McpPost
  stream: ReplyStream
  session: SessionClaims
  principal: Principal
  valid: ValidRequest
}

type Ended = { kind: 'reply'; reply: RouteReply } | { kind: 'failed'; error: GatewayError } | { kind: 'aborted' }

export async function runLegacyCall(deps: LegacyCallDeps, call: LegacyCall): Promise<Access> {
  // Drawn only when the call streams. With several replicas the client's answers may land anywhere:
  // the ids name this one (holderOf).
  let drawn: string | undefined
  const { holder } = deps.handOff
  const tag = (): string => (drawn ??= holder === undefined ? randomBytes(9).toString('base64url') : `${holder}.${randomBytes(9).toString('base64url')}`)
  const stream = new LegacyStream(call.stream, call.post.res, tag)
  const controller = new AbortController()
  const { res } = call.post
  // CANCEL-1/11 (brief: a legacy disconnect cancels too, since nothing could be delivered later).
  const onClose = (): void => {
    if (!res.writableEnded) controller.abort('client disconnected') // h2 too: front/http2-response.ts
  }
  res.once('close', onClose)
  // LEGACY-13: notifications/cancelled naming this request, from any POST of the session.
  const withdraw = deps.handOff.expect(cancelKey(call.session.id, call.valid.request.id), (message) => {
    controller.abort(typeof message.reason === 'string' ? message.reason : 'cancelled by the client')
  })
  const ctx = createContext(call.valid, stream, controller.signal)
  ctx.principal = call.principal
  ctx.client = call.post.remoteAddress // per-client limits and fair scheduling, as for modern calls
  ctx.trace = deps.tracing?.begin(call.valid, call.post.headers, call.session.id)
  try {
    const ended = await drive(deps, call, { stream, ctx, tag })
    ctx.trace?.finish(ended.kind === 'reply' ? ended.reply : undefined)
    if (ended.kind === 'aborted') call.post.log.info({ reqId: call.post.reqId, rpcId: clipForLog(call.valid.request.id), reason: String(controller.signal.reason) }, 'legacy call cancelled') // CANCEL-9
    return write(call.valid, stream, ctx, ended)
  } finally {
    res.off('close', onClose)
    withdraw()
  }
}

function createContext(valid: ValidRequest, stream: LegacyStream, signal: AbortSignal): CallContext {
  // PROG-2, PROG-7, LOG-2: progress only with the client's token and increasing, logs only at the
  // session's level.
  const filter: StreamFilter = { progressToken: getProgressToken(valid.meta), logLevel: valid.logLevel }
  return {
    signal,
    onNotification: (notification: JsonRpcNotification) => {
      if (isDeliverable(notification, filter)) stream.send(notification)
    },
  }
}

interface Drive {
  stream: LegacyStream
  ctx: CallContext
  tag: () => string
}

async function drive(deps: LegacyCallDeps, call: LegacyCall, run: Drive): Promise<Ended> {
  let next = 0
  const ask: AskOptions = {
    handOff: deps.handOff, timeoutMs: deps.clientAnswerTimeoutMs, sessionId: call.session.id,
    stream: run.stream, signal: run.ctx.signal, nextId: () => `${run.tag()}-${++next}`,
  }
  let valid = call.valid
  for (let round = 0; ; round++) {
    const reply = await deps.router.handle(valid, run.ctx)
    if (run.ctx.signal.aborted) return { kind: 'aborted' }
    const input = reply.ok ? readInputRound(reply.result) : undefined
    if (input === undefined) return { kind: 'reply', reply }
    const asked: Asked = round < MAX_INPUT_ROUNDS ? await askClient(ask, input.inputRequests) : tooManyRounds()
    if (asked.kind !== 'answered') {
      // The round will not be retried: a held bridge call must not wait out its hold (LEGACY-C5).
      deps.router.abandon(input.requestState, asked.kind === 'failed' ? asked.error.message : 'the client request ended')
      return asked
    }
    valid = withInputResponses(valid, asked.inputResponses, input.requestState)
  }
}

function tooManyRounds(): Asked {
  return { kind: 'failed', error: new GatewayError('MCP_GATEWAY_UPSTREAM_BAD_REPLY', `still asking for input after ${MAX_INPUT_ROUNDS} rounds`) }
}

function write(valid: ValidRequest, stream: LegacyStream, ctx: CallContext, ended: Ended): Access {
  const { id, method } = valid.request
  const access: Access = { rpcMethod: method, rpcId: id, backend: ctx.backend, ...targetFields(method, ctx.tool), outcome: OUTCOME.ok, status: 200 }
  if (ended.kind === 'aborted' || stream.gone) {
    stream.endWithoutReply() // CANCEL-5
    return { ...access, outcome: OUTCOME.cancelled, status: 499 }
  }
  if (ended.kind === 'failed') {
    stream.finish({ jsonrpc: '2.0', id, error: ended.error.toJsonRpcError() })
    return { ...access, outcome: OUTCOME.error }
  }
  const reply = ended.reply
  if (reply.ok) {
    stream.finish({ jsonrpc: '2.0', id, result: toLegacyResult(reply.result) })
    return reply.toolError === true ? { ...access, outcome: OUTCOME.toolError } : access
  }
  // LEGACY-16: a backend error rewritten for modern clients (ERR-3) reaches this one as it was sent.
  stream.finish({ jsonrpc: '2.0', id, error: reply.received ?? toLegacyError(method, reply.error) })
  const failed = reply.origin === 'gateway' && reply.error.data !== undefined && ctx.backend !== undefined
  return { ...access, outcome: failed ? OUTCOME.upstreamFailure : OUTCOME.error }
}
