// One call to a 2025-11-25 HTTP backend: legacy params, session headers, one retry on a fresh
// session after a 404 (LEGACY-C2), and cancellation by POSTed `notifications/cancelled` before the
// stream is closed, for client aborts and timeouts alike (CANCEL-10, LEGACY-C6, LEGACY-C7).
import type { Logger } from '../../observability/logger.ts'
import type { JsonObject } from '../../protocol/jsonrpc.ts'
import type { UpstreamCall, UpstreamReply } from '../backend.ts'
import { answerCallRequest, toLegacyParams } from '../legacy/legacy-reply.ts'
import { CallSignal } from '../shared/call-signal.ts'
import { toBackendError } from './http-errors.ts'
import { readReply } from './http-reply.ts'
import type { LegacySession, SentRequest } from './legacy-session.ts'
import type { ReplyMeter } from '../shared/reply-budget.ts'

export interface LegacyCallOptions {
  backend: string
  timeoutMs: number
  maxEventChars: number
  logger: Logger
  // This call's share of the gateway's reply budget.
  meter?: ReplyMeter
}

async function send(session: LegacySession, message: JsonObject, signal: AbortSignal, headers?: Record<string, string>): Promise<SentRequest> {
  const sent = await session.post(message, signal, headers)
  if (sent.response.statusCode !== 404 || sent.sessionId === undefined) return sent
  // LEGACY-C2: the session expired; start a new one and try once more.
  await sent.response.body.dump()
  await session.renew(sent.sessionId)
  return session.post(message, signal, headers)
}

function stopReason(call: UpstreamCall, deadline: CallSignal): string {
  return call.signal.aborted ? 'client cancelled the request' : deadline.timedOut ? 'gateway timeout' : 'cancelled'
}

// LEGACY-C5: requests on this call's stream belong to it; elicitation/sampling/roots are bridged.
function answerOnStream(session: LegacySession, call: UpstreamCall, options: LegacyCallOptions) {
  return (request: JsonObject): void => {
    answerCallRequest(request, call.onServerRequest)
      .then((answer) => session.respond({ jsonrpc: '2.0', id: request.id, ...answer }))
      .catch((err: unknown) => options.logger.warn({ backend: options.backend, err, rpcMethod: request.method }, 'could not answer a legacy backend request'))
  }
}

export async function requestLegacy(session: LegacySession, call: UpstreamCall, options: LegacyCallOptions): Promise<UpstreamReply> {
  const id = session.nextId()
  const message = { jsonrpc: '2.0', id, method: call.method, params: toLegacyParams(call.params) }
  const deadline = new CallSignal(call.signal, options.timeoutMs)
  // The stream closes only after the cancellation is on its way (CANCEL-10).
  const stream = new AbortController()
  const onStop = (): void => {
    session.cancel(id, stopReason(call, deadline))
    stream.abort(deadline.signal.reason)
  }
  if (deadline.signal.aborted) stream.abort(deadline.signal.reason) // never sent: nothing to cancel upstream
  else deadline.signal.addEventListener('abort', onStop, { once: true })
  try {
    const { response } = await send(session, message, stream.signal, call.headers)
    return await readReply(response, {
      id, onNotification: call.onNotification, onServerRequest: answerOnStream(session, call, options), maxEventChars: options.maxEventChars, meter: options.meter, scan: call.passOn,
    })
  } catch (err) {
    throw toBackendError(options.backend, err, { aborted: call.signal.aborted, timedOut: deadline.timedOut })
  } finally {
    deadline.dispose()
    deadline.signal.removeEventListener('abort', onStop)
  }
}
