// A backend's state as routing and /readyz see it (era, up, reason, capabilities, protocol
// version), for every transport: the one place that turns it into a BackendStatus, logs its
// transitions ("backend up", "backend down" with the reason, "backend era detected"), each once
// per transition, and tells the `onStatus` listener after every change.
//
// Outlier detection (ARCHITECTURE "down is decided from probes and consecutive failures, never from
// one client's request"): a request's connection failure may be that request's own doing (a body
// over the backend's own limit resets the connection), so it only counts toward `down` when the
// requests of `downAfterFailures` different callers failed so in a row (one caller's failures count
// once: a single client cannot mark a backend down for everyone); the transport also probes at once
// on a first failure, and a failed probe is down.
import type { Logger } from '../../observability/logger.ts'
import type { JsonObject } from '../../protocol/jsonrpc.ts'
import { ERA, type BackendStatus, type Era } from '../backend.ts'

export interface BackendStateOptions {
  name: string
  transport: BackendStatus['transport']
  logger: Logger
  // Why it is down before the first probe has decided.
  initialReason: string
  onStatus?: (status: BackendStatus) => void
  // How many different callers' requests must fail to connect in a row to make it down (default 1).
  downAfterFailures?: number
}

export interface UpVerdict {
  era: 'modern' | 'legacy'
  protocolVersion: string
  capabilities: JsonObject
  // Transport details for the log lines (probe note, child pid, session).
  fields?: JsonObject
}

export interface DownVerdict {
  // What the failed attempt proved about the era; absent or 'unknown' keeps the known one (ERA-3).
  era?: Era
  fields?: JsonObject
}

export class BackendState {
  readonly #options: BackendStateOptions
  #era: Era = ERA.unknown
  #up = false
  // False until the first verdict: the first "down" is a transition too.
  #decided = false
  #reason: string | undefined
  #protocolVersion: string | undefined
  #capabilities: JsonObject = {}
  #snapshot: BackendStatus | undefined
  // Callers whose requests failed to connect since the last answer.
  readonly #failingCallers = new Set<string>()

  constructor(options: BackendStateOptions) {
    this.#options = options
    this.#reason = options.initialReason
  }

  get era(): Era {
    return this.#era
  }

  get up(): boolean {
    return this.#up
  }

  get reason(): string | undefined {
    return this.#reason
  }

  get capabilities(): JsonObject {
    return this.#capabilities
  }

  // A frozen snapshot, built again only after a change (the call path asks for it several times).
  status(): BackendStatus {
    return (this.#snapshot ??= this.#buildStatus())
  }

  #buildStatus(): BackendStatus {
    const { name, transport } = this.#options
    const status: BackendStatus = { name, transport, era: this.#era, up: this.#up }
    if (this.#reason !== undefined) status.reason = this.#reason
    if (this.#protocolVersion !== undefined) status.protocolVersion = this.#protocolVersion
    return Object.freeze(status)
  }

  setUp(verdict: UpVerdict): void {
    const wasUp = this.#up
    const fields = { era: verdict.era, protocolVersion: verdict.protocolVersion, ...verdict.fields }
    this.#noteEra(verdict.era, verdict.protocolVersion, fields)
    this.#capabilities = verdict.capabilities
    this.#up = true
    this.#decided = true
    this.#reason = undefined
    this.recordSuccess()
    if (!wasUp) this.#log('info', fields, 'backend up')
    this.#publish()
  }

  setDown(reason: string, verdict: DownVerdict = {}): void {
    const wasDown = this.#decided && !this.#up
    const { era } = verdict
    // A new era leaves no version negotiated in it yet.
    if (era !== undefined && era !== ERA.unknown) this.#noteEra(era, era === this.#era ? this.#protocolVersion : undefined, { era, ...verdict.fields })
    this.#up = false
    this.#decided = true
    this.#reason = reason
    if (!wasDown) this.#log('warn', { reason, ...verdict.fields }, 'backend down')
    this.#publish()
  }

  // A request of `caller` failed to reach the backend (refused, reset, closed). True when this makes
  // `downAfterFailures` different callers in a row: the transport then marks it down.
  recordFailure(caller: string): boolean {
    if (!this.#up) return false
    this.#failingCallers.add(caller)
    return this.#failingCallers.size >= (this.#options.downAfterFailures ?? 1)
  }

  // A request got an answer (any JSON-RPC reply): the run of failures is over.
  recordSuccess(): void {
    // Set.clear() allocates a new table even when empty: the common call skips it.
    if (this.#failingCallers.size > 0) this.#failingCallers.clear()
  }

  // The gateway itself ends the backend: down, but nothing went wrong (not logged as a failure).
  setClosed(): void {
    this.#up = false
    this.#decided = true
    this.#reason = 'closed'
    this.#publish()
  }

  #noteEra(era: Era, protocolVersion: string | undefined, fields: JsonObject): void {
    const changed = era !== this.#era || protocolVersion !== this.#protocolVersion
    this.#snapshot = undefined
    this.#era = era
    this.#protocolVersion = protocolVersion
    if (changed) this.#log('info', fields, 'backend era detected')
  }

  #log(level: 'info' | 'warn', fields: JsonObject, message: string): void {
    this.#options.logger[level]({ backend: this.#options.name, ...fields }, message)
  }

  // Every change ends here: the next status() is built anew.
  #publish(): void {
    this.#snapshot = undefined
    try {
      this.#options.onStatus?.(this.status())
    } catch (err) {
      this.#options.logger.error({ backend: this.#options.name, err }, 'backend status listener failed')
    }
  }
}
