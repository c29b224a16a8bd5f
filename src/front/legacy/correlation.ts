// Server-initiated requests to a legacy client and its answers (LEGACY-16): each input request of a round
// goes out on the call's POST stream with a gateway id; the client POSTs its response, which the
// hand-off port brings back here. A round ends when every request is answered, when one is refused,
// after a bounded wait (the unanswered ones are cancelled toward the client, LEGACY-13), or when the
// call is cancelled or its client left.
import { GatewayError } from '../../errors.ts'
import type { JsonObject, JsonRpcId } from '../../protocol/jsonrpc.ts'
import { readClientResponse, toServerRequests, type ServerRequest } from '../../protocol/legacy/server-requests.ts'
import type { HandOff } from '../../shared-state/hand-off.ts'
import type { LegacyStream } from './legacy-stream.ts'
import type { CancelSignal } from '../../upstream/shared/cancel-signal.ts'

// Hand-off keys: one namespace per session, the id's JSON type kept (1 ≠ "1").
export function answerKey(sessionId: string, id: JsonRpcId): string {
  return `answer\u0000${sessionId}\u0000${JSON.stringify(id)}`
}

// The replica named in a gateway id (`<holder>.<tag>-<n>`, see legacy-call.ts): where the waiter is.
// Unsealed: a forged one only sends the answer to a replica where nobody waits for it.
export function holderOf(id: JsonRpcId): string | undefined {
  if (typeof id !== 'string') return undefined
  const dot = id.indexOf('.')
  return dot > 0 ? id.slice(0, dot) : undefined
}

export function cancelKey(sessionId: string, requestId: JsonRpcId): string {
  return `cancel\u0000${sessionId}\u0000${JSON.stringify(requestId)}`
}

export interface AskOptions {
  handOff: HandOff
  timeoutMs: number
  sessionId: string
  stream: LegacyStream
  signal: CancelSignal
  // Makes this call's gateway ids (unique in the session).
  nextId: () => string
}

export type Asked =
  | { kind: 'answered'; inputResponses: JsonObject }
  | { kind: 'failed'; error: GatewayError }
  | { kind: 'aborted' }

export function askClient(options: AskOptions, inputRequests: JsonObject): Promise<Asked> {
  const requests = toServerRequests(inputRequests, options.nextId)
  // MRTR-6: a round with only requestState is retried at once.
  if (requests.length === 0) return Promise.resolve({ kind: 'answered', inputResponses: {} })
  if (options.signal.aborted) return Promise.resolve({ kind: 'aborted' })
  return new Promise((resolve) => collect(options, requests, resolve))
}

function collect(options: AskOptions, requests: ServerRequest[], resolve: (asked: Asked) => void): void {
  const inputResponses: JsonObject = {}
  const pending = new Map(requests.map((request) => [request.message.id, request]))
  const withdrawals: Array<() => void> = []
  let timer: NodeJS.Timeout | undefined
  const finish = (asked: Asked): void => {
    clearTimeout(timer)
    options.signal.removeEventListener('abort', onAbort)
    for (const withdraw of withdrawals) withdraw()
    resolve(asked)
  }
  const onAbort = (): void => finish({ kind: 'aborted' })
  timer = setTimeout(() => {
    cancelPending(options, pending, `no answer within ${options.timeoutMs} ms`)
    finish({ kind: 'failed', error: new GatewayError('MCP_GATEWAY_CLIENT_ANSWER_TIMEOUT', describe(pending.values(), options.timeoutMs)) })
  }, options.timeoutMs)
  timer.unref()
  options.signal.addEventListener('abort', onAbort, { once: true })
  for (const request of requests) {
    withdrawals.push(options.handOff.expect(answerKey(options.sessionId, request.message.id), (message) => {
      const answer = readClientResponse(message)?.answer
      pending.delete(request.message.id)
      if (answer === undefined || !answer.ok) return finish({ kind: 'failed', error: refused(request, answer?.ok === false ? answer.error : undefined) })
      inputResponses[request.key] = answer.result
      if (pending.size === 0) finish({ kind: 'answered', inputResponses })
    }))
  }
  for (const request of requests) options.stream.send(request.message)
}

// LEGACY-13: the gateway gives up on its own requests by cancelling them.
function cancelPending(options: AskOptions, pending: Map<JsonRpcId, ServerRequest>, reason: string): void {
  for (const id of pending.keys()) options.stream.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } })
}

function describe(pending: Iterable<ServerRequest>, timeoutMs: number): string {
  return `${[...pending].map((request) => request.message.method).join(', ')} not answered within ${timeoutMs} ms`
}

function refused(request: ServerRequest, error: { code: number; message: string } | undefined): GatewayError {
  const detail = error === undefined ? 'malformed response' : `${error.code} ${error.message}`
  return new GatewayError('MCP_GATEWAY_CLIENT_ANSWER_REFUSED', `${request.message.method}: ${detail}`, { data: error === undefined ? undefined : { clientError: error } })
}
