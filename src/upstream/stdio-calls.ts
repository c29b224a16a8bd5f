// In-flight calls on a shared stdio channel: each gets a gateway id and, when the caller sent one,
// a gateway progressToken (RPC-2, PROG-7); progress is routed back by token with the caller's own
// token restored; abort and timeout send notifications/cancelled (CANCEL-3, CANCEL-8) and a late
// response is ignored (CANCEL-6).
import type { Logger } from '../observability/logger.ts'
import type { JsonRpcId, JsonRpcNotification } from '../protocol/jsonrpc.ts'
import { getMeta, META } from '../protocol/meta.ts'
import type { BackendFailure, Era, UpstreamCall, UpstreamReply } from './backend.ts'
import { BACKEND_FAILURE, BackendError } from './backend.ts'
import type { IdAllocator } from './stdio-ids.ts'
import { restoreProgressToken, rewriteProgressToken } from './stdio-ids.ts'
import type { ChildReply, StdioSession } from './stdio-session.ts'

interface InFlightCall {
  id: string
  originalToken?: JsonRpcId
  wantsLogs: boolean
  onNotification?: (notification: JsonRpcNotification) => void
  fail: (error: BackendError) => void
}

export interface CallRouterOptions {
  backend: string
  timeoutMs: number
  ids: IdAllocator
  logger: Logger
}

export interface CallRouter {
  start(session: StdioSession, call: UpstreamCall): Promise<UpstreamReply>
  routeProgress(notification: JsonRpcNotification): boolean
  routeLog(notification: JsonRpcNotification, era: Era): boolean
  failAll(error: BackendError): void
  readonly size: number
}

export function describeAbortReason(reason: unknown): string {
  if (typeof reason === 'string' && reason !== '') return reason
  if (reason instanceof Error && reason.name !== 'AbortError' && reason.message !== '') return reason.message
  return 'the client cancelled the request'
}

export function createCallRouter(options: CallRouterOptions): CallRouter {
  const byId = new Map<string, InFlightCall>()
  const byToken = new Map<string, InFlightCall>()
  const { backend, logger } = options

  const start = (session: StdioSession, call: UpstreamCall): Promise<UpstreamReply> => new Promise((resolve, reject) => {
    if (call.signal.aborted) {
      const text = describeAbortReason(call.signal.reason)
      reject(new BackendError(backend, BACKEND_FAILURE.aborted, `call to stdio backend "${backend}" aborted before it was sent: ${text}`))
      return
    }
    const rewrite = rewriteProgressToken(call.params, options.ids.progressToken)
    const id = options.ids.requestId()
    const finish = (): void => {
      byId.delete(id)
      if (rewrite.token !== undefined) byToken.delete(rewrite.token)
      session.forget(id)
      clearTimeout(timer)
      call.signal.removeEventListener('abort', onAbort)
    }
    const fail = (error: BackendError): void => { finish(); reject(error) }
    const cancel = (reason: BackendFailure, text: string): void => {
      const what = reason === BACKEND_FAILURE.timeout ? 'timed out' : 'was cancelled'
      fail(new BackendError(backend, reason, `call to stdio backend "${backend}" ${what}: ${text}`))
      // CANCEL-3: the child learns by notification naming the gateway's id; CANCEL-9: log why.
      session.notify('notifications/cancelled', { requestId: id, reason: text })
      logger.info({ rpcId: id, rpcMethod: call.method, reason: text }, 'cancelled stdio backend request')
    }
    const onAbort = (): void => cancel(BACKEND_FAILURE.aborted, describeAbortReason(call.signal.reason))
    // CANCEL-8: a hard per-call timeout, cancelled upstream like an abort.
    const timer = setTimeout(() => cancel(BACKEND_FAILURE.timeout, `no answer within ${options.timeoutMs} ms`), options.timeoutMs)
    timer.unref()
    call.signal.addEventListener('abort', onAbort, { once: true })
    const entry: InFlightCall = {
      id, originalToken: rewrite.original, wantsLogs: getMeta(call.params)?.[META.logLevel] !== undefined,
      onNotification: call.onNotification, fail,
    }
    byId.set(id, entry)
    if (rewrite.token !== undefined) byToken.set(rewrite.token, entry)
    session.request({ id, method: call.method, params: rewrite.params }, (reply) => {
      finish()
      settleReply(reply, { backend, resolve, reject })
    })
  })

  return {
    start,
    get size() { return byId.size },
    routeProgress: (notification) => routeProgress(notification, byToken),
    routeLog: (notification, era) => routeLog(notification, selectLogTarget(byId, era)),
    failAll(error) {
      for (const entry of [...byId.values()]) entry.fail(error)
    },
  }
}

interface Settle {
  backend: string
  resolve: (reply: UpstreamReply) => void
  reject: (error: BackendError) => void
}

function settleReply(reply: ChildReply, settle: Settle): void {
  if (reply.ok === true || reply.ok === false) {
    settle.resolve(reply)
  } else if (reply.ok === 'gone') {
    settle.reject(new BackendError(settle.backend, BACKEND_FAILURE.closed, `stdio backend "${settle.backend}" ${reply.detail} while the call was in flight`))
  } else {
    settle.reject(new BackendError(settle.backend, BACKEND_FAILURE.badReply, `stdio backend "${settle.backend}" sent an invalid response: ${reply.detail}`))
  }
}

function routeProgress(notification: JsonRpcNotification, byToken: Map<string, InFlightCall>): boolean {
  const params = notification.params
  const token = params?.progressToken
  // PROG-3/PROG-7: only tokens of calls still in flight; anything else is dropped.
  const entry = typeof token === 'string' ? byToken.get(token) : undefined
  if (params === undefined || entry === undefined) return false
  if (entry.originalToken === undefined) return false
  entry.onNotification?.({ ...notification, params: restoreProgressToken(params, entry.originalToken) })
  return true
}

// notifications/message carries no request id on stdio. A log is delivered only when exactly one
// call can have caused it: modern servers must not log for a call without a logLevel (LOG-2), so
// the single in-flight call that set one; legacy servers log session-wide, so the call must be the
// only one in flight at all. Everything else is dropped (LOG-7).
function selectLogTarget(byId: Map<string, InFlightCall>, era: Era): InFlightCall | undefined {
  const calls = [...byId.values()]
  const candidates = era === 'modern' ? calls.filter((entry) => entry.wantsLogs) : calls
  return candidates.length === 1 && candidates[0].wantsLogs ? candidates[0] : undefined
}

function routeLog(notification: JsonRpcNotification, target: InFlightCall | undefined): boolean {
  if (target === undefined) return false
  target.onNotification?.(notification)
  return true
}
