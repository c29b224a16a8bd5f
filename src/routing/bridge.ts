// MRTR bridging for 2025-11-25 backends (LEGACY-C5; MRTR-2, MRTR-3, MRTR-4 toward the client): a
// legacy backend's elicitation/create, sampling/createMessage or roots/list sent during a
// tools/call, prompts/get or resources/read keeps the upstream call open (held) while the modern
// client gets an input_required result (MRTR-2/3, MRTR-11); the client's retry feeds its
// inputResponses to the waiting backend request(s) and waits for the final result or the next round.
//
// A held call lives in the memory of the replica that started it. The sealed requestState opens on
// every replica and names the holder: with a shared hand-off (Redis) a retry landing elsewhere is
// relayed to it (bridge-relay.ts); without one it gets -32602 there. Abandoned holds end after `holdMs` and the upstream call is cancelled the backend's way.
import { randomBytes } from 'node:crypto'
import { GatewayError, RPC } from '../errors.ts'
import type { Logger } from '../observability/logger.ts'
import type { JsonObject, JsonRpcId, JsonRpcNotification } from '../protocol/jsonrpc.ts'
import { isJsonObject } from '../protocol/jsonrpc.ts'
import type { ServerAnswer, ServerRequest, UpstreamReply } from '../upstream/backend.ts'
import { findUndeclaredCapability, type BridgeHandle } from './mrtr.ts'
import type { BridgeRelay } from './bridge-relay.ts'
import type { CancelSignal } from '../upstream/shared/cancel-signal.ts'

export const DEFAULT_BRIDGE_HOLD_MS = 60_000

// The client request currently driving a held call (the first one, then each retry).
export interface Attachment {
  signal: CancelSignal
  onNotification: (notification: JsonRpcNotification) => void
  clientCapabilities: JsonObject
  // This request's own progressToken: progress of the held call is re-tagged with it (PROG-7).
  progressToken?: JsonRpcId
}

// What the upstream call is given instead of the client's signal and sink (decoupled: the end of a
// round with input_required must not cancel it).
export interface BridgeHooks {
  signal: AbortSignal
  onNotification: (notification: JsonRpcNotification) => void
  onServerRequest: (request: ServerRequest) => Promise<ServerAnswer>
}

export type Round =
  | { kind: 'reply'; reply: UpstreamReply }
  | { kind: 'input'; handle: BridgeHandle; inputRequests: JsonObject }

export interface BridgeOptions {
  holdMs: number
  logger: Logger
  // Several replicas: retries of a held round that land on another replica reach it through this.
  relay?: BridgeRelay
}

interface Asked {
  key: string
  request: ServerRequest
  // Included in an input_required result: only such requests can be answered by a retry.
  shown: boolean
  answer: (answer: ServerAnswer) => void
}

type Settled = { ok: true; reply: UpstreamReply } | { ok: false; error: unknown }

function refusal(message: string): ServerAnswer {
  // LEGACY-C5 (INF): a request the client cannot be asked is refused with -32601.
  return { error: { code: RPC.methodNotFound, message } }
}

function retag(notification: JsonRpcNotification, token: JsonRpcId | undefined): JsonRpcNotification {
  if (notification.method !== 'notifications/progress' || token === undefined || notification.params === undefined) return notification
  return { ...notification, params: { ...notification.params, progressToken: token } }
}

// One upstream call that may ask for input, with its own AbortController.
class HeldCall {
  readonly id = randomBytes(18).toString('base64url')
  readonly controller = new AbortController()
  readonly log: JsonObject
  round = 0
  timer: NodeJS.Timeout | undefined
  settled: Settled | undefined
  readonly #asked = new Map<string, Asked>()
  #nextKey = 0
  #wake: (() => void) | undefined
  #attachment: Attachment | undefined
  #capabilities: JsonObject = {}

  constructor(log: JsonObject) {
    this.log = log
  }

  get attached(): boolean {
    return this.#attachment !== undefined
  }

  start(run: (hooks: BridgeHooks) => Promise<UpstreamReply>): void {
    const hooks: BridgeHooks = {
      signal: this.controller.signal,
      onNotification: (notification) => this.#relay(notification),
      onServerRequest: (request) => this.#ask(request),
    }
    Promise.resolve().then(() => run(hooks)).then(
      (reply) => this.#settle({ ok: true, reply }),
      (error: unknown) => this.#settle({ ok: false, error }),
    )
  }

  // CANCEL-1: while a client request drives the call, its disconnect cancels the call upstream.
  attach(attachment: Attachment): void {
    this.#attachment = attachment
    this.#capabilities = attachment.clientCapabilities
    if (attachment.signal.aborted) this.#onClientAbort()
    else attachment.signal.addEventListener('abort', this.#onClientAbort, { once: true })
  }

  detach(): void {
    this.#attachment?.signal.removeEventListener('abort', this.#onClientAbort)
    this.#attachment = undefined
  }

  // Resolves once the call has settled or has requests the client has not answered yet.
  async next(): Promise<void> {
    if (!this.#hasNews()) await new Promise<void>((resolve) => { this.#wake = resolve })
    this.#wake = undefined
    // Parallel requests of one backend handler arrive together: one round collects them.
    if (this.settled === undefined) await new Promise((resolve) => setImmediate(resolve))
  }

  // MRTR-5, ERR-15: answers every shown request the retry responds to; a malformed entry is an
  // error before anything is delivered; missing ones stay and are asked again; extra keys ignored.
  deliver(inputResponses: unknown): void {
    if (inputResponses === undefined) return
    if (!isJsonObject(inputResponses)) throw new GatewayError('MCP_GATEWAY_PARAMS_INVALID', 'inputResponses must be an object')
    const ready: Array<[Asked, JsonObject]> = []
    for (const asked of this.#asked.values()) {
      const value = inputResponses[asked.key]
      if (!asked.shown || value === undefined) continue
      if (!isJsonObject(value)) throw new GatewayError('MCP_GATEWAY_PARAMS_INVALID', `inputResponses.${asked.key} must be an object`)
      ready.push([asked, value])
    }
    for (const [asked, result] of ready) {
      this.#asked.delete(asked.key)
      asked.answer({ result })
    }
  }

  // MRTR-3: every unanswered request, under its gateway-chosen key, without jsonrpc or id.
  inputRequests(): JsonObject {
    const requests: JsonObject = {}
    for (const asked of this.#asked.values()) {
      asked.shown = true
      const { method, params } = asked.request
      requests[asked.key] = params === undefined ? { method } : { method, params }
    }
    return requests
  }

  readonly #onClientAbort = (): void => {
    this.controller.abort(this.#attachment?.signal.reason)
  }

  #hasNews(): boolean {
    return this.settled !== undefined || this.#asked.size > 0
  }

  #settle(settled: Settled): void {
    this.settled = settled
    // A backend request still waiting when the call ends gets its answer too (LEGACY-C5).
    for (const asked of this.#asked.values()) asked.answer(refusal(`${asked.request.method}: the call is over`))
    this.#asked.clear()
    this.#wake?.()
  }

  // Between rounds nobody listens: notifications are dropped (SSE-1).
  #relay(notification: JsonRpcNotification): void {
    const attachment = this.#attachment
    if (attachment !== undefined) attachment.onNotification(retag(notification, attachment.progressToken))
  }

  // MRTR-4: only what the client driving the call declared (CAP-2 elicitation modes); else refused.
  #ask(request: ServerRequest): Promise<ServerAnswer> {
    if (this.settled !== undefined || this.controller.signal.aborted) return Promise.resolve(refusal(`${request.method}: the call is over`))
    const problem = findUndeclaredCapability(request.method, request.params, this.#capabilities)
    if (problem !== undefined) return Promise.resolve(refusal(`${request.method} refused: ${problem} by the client`))
    return new Promise((answer) => {
      const key = `input-${++this.#nextKey}`
      this.#asked.set(key, { key, request, shown: false, answer })
      this.#wake?.()
    })
  }
}

// The held calls of one Router (no module-level state): registry keyed by a random id.
export class Bridge {
  readonly #held = new Map<string, HeldCall>()
  readonly #options: BridgeOptions

  constructor(options: BridgeOptions) {
    this.#options = options
  }

  // Starts a call that may ask for input; resolves with its reply or its first input round.
  open(run: (hooks: BridgeHooks) => Promise<UpstreamReply>, attachment: Attachment, log: JsonObject): Promise<Round> {
    const call = new HeldCall(log)
    call.attach(attachment)
    call.start(run)
    return this.#round(call)
  }

  // MRTR-5/9: the retry of the latest round, once: an unknown, stale or busy handle → -32602.
  async resume(handle: BridgeHandle, attachment: Attachment, inputResponses: unknown): Promise<Round> {
    const call = this.#held.get(handle.id)
    if (call === undefined || call.round !== handle.round || call.attached) {
      throw new GatewayError('MCP_GATEWAY_STATE_INVALID', 'requestState names no call waiting for this input (expired, already used, or held by another replica)')
    }
    call.deliver(inputResponses)
    clearTimeout(call.timer)
    call.attach(attachment)
    return this.#round(call)
  }

  async #round(call: HeldCall): Promise<Round> {
    try {
      await call.next()
    } finally {
      call.detach()
    }
    const settled = call.settled
    if (settled !== undefined) {
      this.#release(call)
      if (settled.ok) return { kind: 'reply', reply: settled.reply }
      throw settled.error
    }
    call.round++
    const handle: BridgeHandle = { id: call.id, round: call.round }
    const holder = this.#options.relay?.holder
    if (holder !== undefined) handle.holder = holder
    this.#hold(call, handle)
    return { kind: 'input', handle, inputRequests: call.inputRequests() }
  }

  // MRTR-10: the client may never retry; the hold ends and the upstream call is cancelled (CANCEL-8).
  #hold(call: HeldCall, handle: BridgeHandle): void {
    this.#held.set(call.id, call)
    this.#options.relay?.hold(handle, (h, attachment, inputResponses) => this.resume(h, attachment, inputResponses))
    call.timer = setTimeout(() => this.#abandon(call), this.#options.holdMs)
    call.timer.unref()
    this.#options.logger.info({ ...call.log, round: call.round }, 'mrtr bridge: backend waits for client input')
  }

  #abandon(call: HeldCall, reason = `the client did not retry within ${this.#options.holdMs} ms`): void {
    this.#release(call)
    if (call.settled !== undefined) return
    // CANCEL-9: the reason is logged.
    this.#options.logger.info({ ...call.log, reason }, 'mrtr bridge: held call abandoned; cancelling upstream')
    call.controller.abort(reason)
  }

  // The held call will not be resumed (a legacy client did not finish its round): cancelled now.
  cancel(id: string, reason: string): void {
    const call = this.#held.get(id)
    if (call !== undefined && !call.attached) this.#abandon(call, reason)
  }

  // Shutdown: every held call is cancelled upstream; its client already has its input_required.
  close(): void {
    for (const call of [...this.#held.values()]) {
      this.#release(call)
      if (call.settled === undefined) call.controller.abort('gateway shutting down')
    }
  }

  #release(call: HeldCall): void {
    this.#options.relay?.release(call.id)
    clearTimeout(call.timer)
    this.#held.delete(call.id)
  }
}
