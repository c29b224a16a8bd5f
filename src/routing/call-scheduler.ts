// Fair scheduling of the calls to one backend, whatever its transport (README "Limits"): at most
// `slots` calls in flight, at most `perClient` of them from one client; the others wait in one FIFO
// queue per client, served round robin (a free slot goes to the waiting client served least
// recently), so a client that floods waits behind itself, never in front of the others. At most `maxQueued` calls wait in all (when full, the longest queue sheds
// its newest call), and none waits longer than `queueTimeoutMs` (apart from the call's own timeout,
// which starts when the call is sent). Refusals are BackendErrors naming the backend.
import type { Principal } from '../auth/principal.ts'
import type { BackendConfig } from '../config/types.ts'
import { BackendError } from '../upstream/backend.ts'
import type { CancelSignal } from '../upstream/shared/cancel-signal.ts'

export interface CallSchedulerOptions {
  backend: string
  slots: number
  perClient: number
  maxQueued: number
  queueTimeoutMs: number
}

interface Waiter {
  client: string
  signal: CancelSignal
  start: () => void
  fail: (err: BackendError) => void
  onAbort: () => void
  // When its queue timeout passes (Date.now()); done once it left the queue.
  deadline: number
  done: boolean
}

interface ClientCalls {
  active: number
  waiting: Waiter[]
  // When it last got a slot (a counter): the least recent goes first.
  servedAt: number
}

export class CallScheduler {
  readonly #options: CallSchedulerOptions
  readonly #clients = new Map<string, ClientCalls>()
  // Clients with waiting calls.
  readonly #waitingClients = new Set<ClientCalls>()
  #served = 0
  #active = 0
  #queued = 0
  // Every waiter in the order it entered, which is the order its deadline passes: one timer for
  // the oldest instead of one per waiter. Waiters that left are skipped (and trimmed from the head).
  readonly #byAge: Waiter[] = []
  #expiryTimer: NodeJS.Timeout | undefined
  // Waiting for nothing to be in flight or queued (a backend removed by a reload drains).
  readonly #idleWaiters: Array<() => void> = []

  constructor(options: CallSchedulerOptions) {
    this.#options = options
  }

  get backend(): string {
    return this.#options.backend
  }

  // Calls waiting for a slot now.
  get queued(): number {
    return this.#queued
  }

  // Settles once no call is in flight or waiting (at once when none is).
  idle(): Promise<void> {
    if (this.#active === 0 && this.#queued === 0) return Promise.resolve()
    return new Promise((resolve) => this.#idleWaiters.push(resolve))
  }

  #checkIdle(): void {
    if (this.#active === 0 && this.#queued === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve()
  }

  // Runs `call` once a slot is free for `client`; the slot is held until it settles.
  run<T>(client: string, signal: CancelSignal, call: () => Promise<T>): Promise<T> {
    // A free slot (the common case) is taken at once, without a turn of waiting.
    const calls = this.#calls(client)
    if (calls.waiting.length === 0 && this.#active < this.#options.slots && calls.active < this.#options.perClient) {
      this.#take(calls)
      return this.#holding(client, call)
    }
    return this.#queue(calls, client, signal).then(() => this.#holding(client, call))
  }

  // The slot taken is held until `call` settles.
  async #holding<T>(client: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call()
    } finally {
      this.#release(client)
    }
  }

  #queue(calls: ClientCalls, client: string, signal: CancelSignal): Promise<void> {
    if (signal.aborted) {
      this.#forget(client)
      return Promise.reject(this.#error('aborted', 'the client cancelled the call before it was sent'))
    }
    if (this.#queued >= this.#options.maxQueued && !this.#shed(calls)) {
      this.#forget(client)
      return Promise.reject(this.#error('queue_full', `${this.#options.maxQueued} calls are waiting for this backend already; retry later`))
    }
    return new Promise((resolve, reject) => this.#enqueue(calls, client, signal, resolve, reject))
  }

  #enqueue(calls: ClientCalls, client: string, signal: CancelSignal, start: () => void, fail: (err: BackendError) => void): void {
    const waiter: Waiter = {
      client, signal, start, fail, deadline: Date.now() + this.#options.queueTimeoutMs, done: false,
      onAbort: () => this.#drop(waiter, this.#error('aborted', 'the client cancelled the call while it waited')),
    }
    signal.addEventListener('abort', waiter.onAbort, { once: true })
    this.#waitingClients.add(calls)
    calls.waiting.push(waiter)
    this.#queued++
    this.#byAge.push(waiter)
    if (this.#expiryTimer === undefined) this.#armExpiry(this.#options.queueTimeoutMs)
  }

  #armExpiry(ms: number): void {
    this.#expiryTimer = setTimeout(this.#expire, ms)
    this.#expiryTimer.unref()
  }

  // The oldest waiters whose time is up get queue_timeout; the timer is re-armed for the next.
  readonly #expire = (): void => {
    this.#expiryTimer = undefined
    const now = Date.now()
    while (this.#byAge.length > 0) {
      const oldest = this.#byAge[0]
      if (!oldest.done && oldest.deadline > now) return this.#armExpiry(oldest.deadline - now)
      this.#byAge.shift()
      if (!oldest.done) this.#drop(oldest, this.#error('queue_timeout', `no free slot within ${this.#options.queueTimeoutMs} ms`))
    }
  }

  // The queue is full: the longest queue of another client gives up its newest call, if it is
  // longer than this client's would be. False when this client's call is the one to refuse.
  #shed(calls: ClientCalls): boolean {
    let longest: ClientCalls | undefined
    for (const other of this.#clients.values()) if (longest === undefined || other.waiting.length > longest.waiting.length) longest = other
    if (longest === undefined || longest === calls || longest.waiting.length <= calls.waiting.length + 1) return false
    const victim = longest.waiting[longest.waiting.length - 1]
    this.#drop(victim, this.#error('queue_full', `the queue for this backend is full (${this.#options.maxQueued} calls); this client has the most waiting`))
    return true
  }

  #drop(waiter: Waiter, err: BackendError): void {
    const calls = this.#clients.get(waiter.client)
    const at = calls?.waiting.indexOf(waiter) ?? -1
    if (calls === undefined || at === -1) return
    calls.waiting.splice(at, 1)
    this.#settled(waiter)
    this.#forget(waiter.client)
    waiter.fail(err)
    this.#checkIdle()
  }

  #release(client: string): void {
    const calls = this.#clients.get(client)
    if (calls !== undefined) calls.active--
    this.#active--
    this.#forget(client)
    this.#dispatch()
    this.#checkIdle()
  }

  // Fills free slots, one call per client in turn, skipping clients at their own limit.
  #dispatch(): void {
    while (this.#active < this.#options.slots) {
      const calls = this.#nextClient()
      if (calls === undefined) return
      const waiter = calls.waiting.shift()!
      if (calls.waiting.length === 0) this.#waitingClients.delete(calls)
      this.#settled(waiter)
      this.#take(calls)
      waiter.start()
    }
  }

  // The waiting client below its own limit that was served least recently.
  #nextClient(): ClientCalls | undefined {
    let next: ClientCalls | undefined
    for (const calls of this.#waitingClients) {
      if (calls.active < this.#options.perClient && (next === undefined || calls.servedAt < next.servedAt)) next = calls
    }
    return next
  }

  #settled(waiter: Waiter): void {
    waiter.done = true
    waiter.signal.removeEventListener('abort', waiter.onAbort)
    this.#queued--
    while (this.#byAge.length > 0 && this.#byAge[0].done) this.#byAge.shift()
  }

  #take(calls: ClientCalls): void {
    calls.active++
    calls.servedAt = ++this.#served
    this.#active++
  }

  #calls(client: string): ClientCalls {
    let calls = this.#clients.get(client)
    if (calls === undefined) this.#clients.set(client, (calls = { active: 0, waiting: [], servedAt: 0 }))
    return calls
  }

  // A client with nothing in flight and nothing waiting is forgotten (memory follows the clients
  // active now: a returning client starts as never served).
  #forget(client: string): void {
    const calls = this.#clients.get(client)
    if (calls === undefined || calls.waiting.length > 0) return
    this.#waitingClients.delete(calls)
    if (calls.active === 0) this.#clients.delete(client)
  }

  #error(reason: 'queue_full' | 'queue_timeout' | 'aborted', message: string): BackendError {
    return new BackendError(this.#options.backend, reason, message)
  }
}

// The limits every backend's scheduler shares (config `limits`).
export interface CallLimits {
  callsPerClient: number
  queuedCalls: number
  queueTimeoutMs: number
}

// One scheduler per backend; its slots are the backend's own concurrency (HTTP: `connections`,
// stdio: `concurrency`).
export class BackendSchedulers {
  readonly #byBackend = new Map<string, { config: BackendConfig; scheduler: CallScheduler }>()
  readonly #limits: CallLimits

  constructor(entries: ReadonlyArray<{ config: BackendConfig }>, limits: CallLimits) {
    this.#limits = limits
    this.sync(entries)
  }

  // After a reload: a backend whose config object is the same keeps its scheduler; the others get
  // a new one. Returns the schedulers let go (their calls in flight still release into them).
  sync(entries: ReadonlyArray<{ config: BackendConfig }>): CallScheduler[] {
    const old = new Map(this.#byBackend)
    this.#byBackend.clear()
    for (const { config } of entries) {
      const kept = old.get(config.name)
      if (kept?.config === config) old.delete(config.name)
      this.#byBackend.set(config.name, kept?.config === config ? kept : { config, scheduler: this.#create(config) })
    }
    return [...old.values()].map((e) => e.scheduler)
  }

  #create(config: BackendConfig): CallScheduler {
    const { callsPerClient, queuedCalls, queueTimeoutMs } = this.#limits
    const slots = config.transport === 'http' ? config.connections : config.concurrency
    return new CallScheduler({ backend: config.name, slots, perClient: callsPerClient, maxQueued: queuedCalls, queueTimeoutMs })
  }

  run<T>(backend: string, call: { client: string; signal: CancelSignal }, send: () => Promise<T>): Promise<T> {
    const scheduler = this.#byBackend.get(backend)?.scheduler
    return scheduler === undefined ? send() : scheduler.run(call.client, call.signal, send)
  }

  // Calls waiting for a slot, per backend (mcp_gateway_queued_calls).
  queued(): Array<{ backend: string; calls: number }> {
    return [...this.#byBackend.values()].map(({ scheduler }) => ({ backend: scheduler.backend, calls: scheduler.queued }))
  }
}

// Who a call is counted against: an authenticated principal, else the client's address.
export function callerKey(principal: Principal | undefined, address: string | undefined): string {
  if (principal !== undefined && !principal.isAnonymous) return principal.id
  return address ?? 'unknown'
}
