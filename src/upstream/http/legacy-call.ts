// One call to a 2025-11-25 HTTP backend: legacy params, session headers, one retry on a fresh
// session after a 404 (LEGACY-C2), and cancellation by POSTed `notifications/cancelled` before the
// stream is closed, for client aborts and timeouts alike (CANCEL-10, LEGACY-C6, LEGACY-C7).
import type { BackendError, UpstreamCall, UpstreamReply } from '../backend.ts'
import { toBackendError } from './http-errors.ts'
import { answerCallRequest, readLegacyReply, toLegacyParams } from '../legacy/legacy-reply.ts'
import type { LegacySession, SentRequest } from './legacy-session.ts'

export interface LegacyCallOptions {
  backend: string
  timeoutMs: number
  maxEventChars: number
}

async function send(session: LegacySession, message: Record<string, unknown>, signal: AbortSignal): Promise<SentRequest> {
  const sent = await session.post(message, signal)
  if (sent.response.statusCode !== 404 || sent.sessionId === undefined) return sent
  // LEGACY-C2: the session expired; start a new one and try once more.
  await sent.response.body.dump()
  await session.renew(sent.sessionId)
  return session.post(message, signal)
}

function stopReason(call: UpstreamCall, timeout: AbortSignal): string {
  return call.signal.aborted ? 'client cancelled the request' : timeout.aborted ? 'gateway timeout' : 'cancelled'
}

export async function requestLegacy(session: LegacySession, call: UpstreamCall, options: LegacyCallOptions): Promise<UpstreamReply> {
  const id = session.nextId()
  const message = { jsonrpc: '2.0', id, method: call.method, params: toLegacyParams(call.params) }
  const timeout = AbortSignal.timeout(options.timeoutMs)
  const stop = AbortSignal.any([call.signal, timeout])
  const stream = new AbortController()
  const onStop = (): void => {
    session.cancel(id, stopReason(call, timeout))
    stream.abort(stop.reason)
  }
  stop.addEventListener('abort', onStop, { once: true })
  try {
    if (stop.aborted) stream.abort(stop.reason) // never sent: nothing to cancel upstream
    const { response } = await send(session, message, stream.signal)
    return await readLegacyReply(response, {
      id,
      onNotification: call.onNotification,
      // LEGACY-C5, G8: requests on this call's stream belong to it; elicitation/sampling/roots are bridged.
      onServerRequest: (request) => {
        void answerCallRequest(request, call.onServerRequest).then((answer) => session.respond({ jsonrpc: '2.0', id: request.id, ...answer }))
      },
      maxEventChars: options.maxEventChars,
    })
  } catch (err) {
    const failure: BackendError = toBackendError(options.backend, err, { aborted: call.signal.aborted, timedOut: timeout.aborted })
    throw failure
  } finally {
    stop.removeEventListener('abort', onStop)
  }
}
