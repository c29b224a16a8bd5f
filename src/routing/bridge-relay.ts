// A modern client's MRTR retry of a bridged legacy call that lands on another replica than the one
// holding the call (README "Running N replicas"): the bridge handle, sealed in requestState, names
// its holder; this replica hands the retry to it through the hand-off port and waits for the round's
// outcome (the result, the next input round, or the error), bounded by the hold. The holder waits
// for retries of each held round under the call's id. Progress of a round resumed elsewhere is not
// relayed (SSE-1 allows leaving it out); the client's disconnect cancels the call on the holder.
import { randomBytes } from 'node:crypto'
import { ERRORS, GatewayError, type ErrorCode } from '../errors.ts'
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.ts'
import { BackendError, type BackendFailure, type UpstreamReply } from '../upstream/backend.ts'
import type { Attachment, Round } from './bridge.ts'
import type { BridgeHandle } from './mrtr.ts'

// The hand-off port as the relay needs it (src/shared-state/hand-off.ts).
export interface RelayChannel {
  readonly holder?: string
  expect(key: string, receive: (message: JsonObject) => void): () => void
  deliver(key: string, message: JsonObject, holder?: string): Promise<boolean>
}

type Resume = (handle: BridgeHandle, attachment: Attachment, inputResponses: unknown) => Promise<Round>

const retryKey = (id: string): string => `bridge\u0000${id}`
const outcomeKey = (ticket: string): string => `bridge-outcome\u0000${ticket}`
const cancelKey = (ticket: string): string => `bridge-cancel\u0000${ticket}`

export class BridgeRelay {
  readonly #channel: RelayChannel
  readonly #waitMs: number
  readonly #serving = new Map<string, () => void>()

  constructor(channel: RelayChannel, waitMs: number) {
    this.#channel = channel
    this.#waitMs = waitMs
  }

  get holder(): string | undefined {
    return this.#channel.holder
  }

  // Holder side: the held call `handle` takes one retry from another replica (its round's).
  hold(handle: BridgeHandle, resume: Resume): void {
    this.release(handle.id)
    const withdraw = this.#channel.expect(retryKey(handle.id), (message) => {
      this.#serving.delete(handle.id)
      this.#serve(handle, message, resume)
    })
    this.#serving.set(handle.id, withdraw)
  }

  release(id: string): void {
    this.#serving.get(id)?.()
    this.#serving.delete(id)
  }

  // Retrying side: the round of a call held by `handle.holder`.
  async resume(handle: BridgeHandle, attachment: Attachment, inputResponses: unknown): Promise<Round> {
    const ticket = randomBytes(12).toString('base64url')
    let timer: NodeJS.Timeout | undefined
    let withdraw = (): void => {}
    const outcome = new Promise<JsonObject>((resolve, reject) => {
      withdraw = this.#channel.expect(outcomeKey(ticket), resolve)
      timer = setTimeout(() => reject(new GatewayError('MCP_GATEWAY_REPLICA_HANDOFF_TIMEOUT', `no outcome from replica ${handle.holder} within ${this.#waitMs} ms`)), this.#waitMs)
    })
    const onAbort = (): void => void this.#channel.deliver(cancelKey(ticket), {}, handle.holder).catch(() => {})
    try {
      const request: JsonObject = { round: handle.round, ticket, from: this.#channel.holder ?? '', capabilities: attachment.clientCapabilities }
      if (inputResponses !== undefined) request.inputResponses = inputResponses as JsonObject
      if (!(await this.#channel.deliver(retryKey(handle.id), request, handle.holder))) {
        throw new GatewayError('MCP_GATEWAY_STATE_INVALID', 'requestState names no call waiting for this input (expired or already used)')
      }
      attachment.signal.addEventListener('abort', onAbort, { once: true })
      return readOutcome(await outcome)
    } finally {
      clearTimeout(timer)
      withdraw()
      attachment.signal.removeEventListener('abort', onAbort)
    }
  }

  #serve(handle: BridgeHandle, message: JsonObject, resume: Resume): void {
    const from = typeof message.from === 'string' ? message.from : undefined
    const ticket = String(message.ticket)
    const controller = new AbortController()
    const stopCancel = this.#channel.expect(cancelKey(ticket), () => controller.abort('the client of the retrying replica left'))
    const attachment: Attachment = {
      signal: controller.signal, onNotification: () => {},
      clientCapabilities: isJsonObject(message.capabilities) ? message.capabilities : {},
    }
    const round = message.round === handle.round ? handle : { ...handle, round: -1 }
    resume(round, attachment, message.inputResponses).then(writeOutcome, writeError).then((outcome) => {
      stopCancel()
      return this.#channel.deliver(outcomeKey(ticket), outcome, from)
    }).catch(() => {}) // the retrying replica is gone: its client is too
  }
}

function writeOutcome(round: Round): JsonObject {
  if (round.kind === 'reply') return { kind: 'reply', reply: round.reply as unknown as JsonObject }
  return { kind: 'input', id: round.handle.id, round: round.handle.round, holder: round.handle.holder ?? '', inputRequests: round.inputRequests }
}

function writeError(err: unknown): JsonObject {
  if (err instanceof BackendError) return { kind: 'error', backend: err.backend, reason: err.reason, message: err.message }
  if (err instanceof GatewayError) return { kind: 'error', code: err.code, detail: err.message.slice(ERRORS[err.code].message.length + 2) }
  return { kind: 'error', code: 'MCP_GATEWAY_INTERNAL', detail: String(err) }
}

function readOutcome(outcome: JsonObject): Round {
  if (outcome.kind === 'reply') return { kind: 'reply', reply: outcome.reply as unknown as UpstreamReply }
  if (outcome.kind === 'input' && typeof outcome.id === 'string' && typeof outcome.round === 'number' && isJsonObject(outcome.inputRequests)) {
    const holder = typeof outcome.holder === 'string' && outcome.holder !== '' ? outcome.holder : undefined
    return { kind: 'input', handle: { id: outcome.id, round: outcome.round, holder }, inputRequests: outcome.inputRequests }
  }
  if (typeof outcome.backend === 'string') throw new BackendError(outcome.backend, outcome.reason as BackendFailure, String(outcome.message))
  const code = typeof outcome.code === 'string' && outcome.code in ERRORS ? outcome.code as ErrorCode : 'MCP_GATEWAY_INTERNAL'
  throw new GatewayError(code, typeof outcome.detail === 'string' && outcome.detail !== '' ? outcome.detail : undefined)
}
