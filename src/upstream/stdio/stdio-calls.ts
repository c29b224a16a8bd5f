// In-flight calls on a shared stdio channel: each gets a gateway id and, when the caller sent one,
// a gateway progressToken (RPC-2, PROG-7); progress is routed back by token with the caller's own
// token restored; abort and timeout send notifications/cancelled (CANCEL-3, CANCEL-8) and a late
// response is ignored (CANCEL-6).
import type { Logger } from '../../observability/logger.ts'
import type { JsonRpcId, JsonRpcNotification } from '../../protocol/jsonrpc.ts'
import { getMeta, META } from '../../protocol/meta.ts'
import type { BackendFailure, Era, ServerAnswer, ServerRequest, UpstreamCall, UpstreamReply } from '../backend.ts'
import { BACKEND_FAILURE, BackendError } from '../backend.ts'
import { CallSignal } from '../shared/call-signal.ts'
import type { IdAllocator } from './stdio-ids.ts'
import { restoreProgressToken, rewriteProgressToken } from './stdio-ids.ts'
import type { ChildReply, StdioSession } from './stdio-session.ts'

interface InFlightCall {
  id: string
  call: UpstreamCall
  session: StdioSession
  // The gateway's token and the caller's own, when the caller asked for progress.
  token?: string
  originalToken?: JsonRpcId
  wantsLogs: boolean
  // Backend requests of this call waiting for the client's answer (MRTR bridging, LEGACY-C5).
  asking: number
  // CANCEL-8: the caller's abort and the per-call timeout, in one signal.
  deadline: CallSignal
  resolve: (reply: UpstreamReply) => void
  reject: (error: BackendError) => void
}

export interface CallRouterOptions {
  backend: string
  timeoutMs: number
  ids: IdAllocator
  logger: Logger
}

export function describeAbortReason(reason: unknown): string {
  if (typeof reason === 'string' && reason !== '') return reason
  if (reason instanceof Error && reason.name !== 'AbortError' && reason.message !== '') return reason.message
  return 'the client cancelled the request'
}

export function createCallRouter(options: CallRouterOptions): CallRouter {
  return new CallRouter(options)
}

export class CallRouter {
  readonly #options: CallRouterOptions
  readonly #byId = new Map<string, InFlightCall>()
  readonly #byToken = new Map<string, InFlightCall>()

  constructor(options: CallRouterOptions) {
    this.#options = options
  }

  get size(): number {
    return this.#byId.size
  }

  start(session: StdioSession, call: UpstreamCall): Promise<UpstreamReply> {
    if (call.signal.aborted) {
      const text = describeAbortReason(call.signal.reason)
      return Promise.reject(this.#error(BACKEND_FAILURE.aborted, `call to stdio backend "${this.#options.backend}" aborted before it was sent: ${text}`))
    }
    return new Promise((resolve, reject) => this.#open(session, call, { resolve, reject }))
  }

  // PROG-3/PROG-7: only tokens of calls still in flight, with the caller's token put back.
  routeProgress(notification: JsonRpcNotification): boolean {
    const token = notification.params?.progressToken
    const entry = typeof token === 'string' ? this.#byToken.get(token) : undefined
    if (notification.params === undefined || entry?.originalToken === undefined) return false
    entry.call.onNotification?.({ ...notification, params: restoreProgressToken(notification.params, entry.originalToken) })
    return true
  }

  routeLog(notification: JsonRpcNotification, era: Era): boolean {
    const target = selectLogTarget([...this.#byId.values()], era)
    target?.call.onNotification?.(notification)
    return target !== undefined
  }

  // LEGACY-C5: stdio ties a legacy child's request to no call, so it goes to the only bridge-capable call
  // not already waiting for an answer, else to the only bridge-capable call at all; with several
  // candidates nothing is chosen and the request is refused (ambiguous on a shared child).
  bridgeFor(): ((request: ServerRequest) => Promise<ServerAnswer>) | undefined {
    const capable = [...this.#byId.values()].filter((entry) => entry.call.onServerRequest !== undefined)
    const idle = capable.filter((entry) => entry.asking === 0)
    const target = idle.length === 1 ? idle[0] : capable.length === 1 ? capable[0] : undefined
    const bridge = target?.call.onServerRequest
    if (target === undefined || bridge === undefined) return undefined
    return async (request) => {
      target.asking++
      try {
        return await bridge(request)
      } finally {
        target.asking--
      }
    }
  }

  failAll(error: BackendError): void {
    for (const entry of [...this.#byId.values()]) this.#fail(entry, error)
  }

  #open(session: StdioSession, call: UpstreamCall, settle: Pick<InFlightCall, 'resolve' | 'reject'>): void {
    const rewrite = rewriteProgressToken(call.params, this.#options.ids.progressToken)
    const { timeoutMs } = this.#options
    const entry: InFlightCall = {
      id: this.#options.ids.requestId(), call, session, token: rewrite.token, originalToken: rewrite.original,
      wantsLogs: getMeta(call.params)?.[META.logLevel] !== undefined, asking: 0, deadline: new CallSignal(call.signal, timeoutMs),
      ...settle,
    }
    // CANCEL-3, CANCEL-8: an abort and the hard per-call timeout are both cancelled upstream (the
    // deadline's own listener: no AbortController per call, as on the HTTP path).
    entry.deadline.onAbort(() => {
      if (entry.deadline.timedOut) this.#cancel(entry, BACKEND_FAILURE.timeout, `no answer within ${timeoutMs} ms`)
      else this.#cancel(entry, BACKEND_FAILURE.aborted, describeAbortReason(call.signal.reason))
    })
    this.#byId.set(entry.id, entry)
    if (entry.token !== undefined) this.#byToken.set(entry.token, entry)
    session.request({ id: entry.id, method: call.method, params: rewrite.params }, (reply) => this.#settle(entry, reply))
  }

  #finish(entry: InFlightCall): void {
    this.#byId.delete(entry.id)
    if (entry.token !== undefined) this.#byToken.delete(entry.token)
    entry.session.forget(entry.id)
    entry.deadline.dispose()
  }

  #settle(entry: InFlightCall, reply: ChildReply): void {
    this.#finish(entry)
    const { backend } = this.#options
    if (reply.ok === true || reply.ok === false) entry.resolve(reply)
    else if (reply.ok === 'gone') entry.reject(this.#error(BACKEND_FAILURE.closed, `stdio backend "${backend}" ${reply.detail} while the call was in flight`))
    else entry.reject(this.#error(BACKEND_FAILURE.badReply, `stdio backend "${backend}" sent an invalid response: ${reply.detail}`))
  }

  #fail(entry: InFlightCall, error: BackendError): void {
    this.#finish(entry)
    entry.reject(error)
  }

  #cancel(entry: InFlightCall, reason: BackendFailure, text: string): void {
    const what = reason === BACKEND_FAILURE.timeout ? 'timed out' : 'was cancelled'
    this.#fail(entry, this.#error(reason, `call to stdio backend "${this.#options.backend}" ${what}: ${text}`))
    // CANCEL-3: the child learns by notification naming the gateway's id; CANCEL-9: log why.
    entry.session.notify('notifications/cancelled', { requestId: entry.id, reason: text })
    this.#options.logger.info({ rpcId: entry.id, rpcMethod: entry.call.method, reason: text }, 'cancelled stdio backend request')
  }

  #error(reason: BackendFailure, message: string): BackendError {
    return new BackendError(this.#options.backend, reason, message)
  }
}

// notifications/message carries no request id on stdio. A log is delivered only when exactly one
// call can have caused it: modern servers must not log for a call without a logLevel (LOG-2), so
// the single in-flight call that set one; legacy servers log session-wide, so the call must be the
// only one in flight at all. Everything else is dropped (LOG-7); a log written while no call is in
// flight goes to the listens instead (stdio-backend.ts).
function selectLogTarget(calls: InFlightCall[], era: Era): InFlightCall | undefined {
  const candidates = era === 'modern' ? calls.filter((entry) => entry.wantsLogs) : calls
  return candidates.length === 1 && candidates[0].wantsLogs ? candidates[0] : undefined
}
