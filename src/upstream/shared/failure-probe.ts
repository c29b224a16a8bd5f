// What a transport does when one of its requests fails to connect (refused, reset, closed): that
// request fails alone. The backend goes down only when BackendState's outlier detection says so
// (downAfterFailures different callers in a row) or when a probe sent right away fails too; one
// probe runs at a time. A reachable probe does not end the run of failures: only an answered
// request does (BackendState.recordSuccess).
import type { Logger } from '../../observability/logger.ts'
import type { BackendState } from './backend-state.ts'

export interface FailureProbeOptions {
  backend: string
  state: BackendState
  logger: Logger
  // The reason the backend is down, or undefined when the probe reached it.
  probe: () => Promise<string | undefined>
  markDown: (reason: string) => void
}

// The caller of the gateway's own requests (list fetches, legacy listens).
export const GATEWAY_CALLER = 'gateway'

export class FailureProbe {
  readonly #options: FailureProbeOptions
  #running: Promise<void> | undefined

  constructor(options: FailureProbeOptions) {
    this.#options = options
  }

  onConnectFailure(reason: string, caller = GATEWAY_CALLER): void {
    const { state } = this.#options
    if (state.recordFailure(caller)) return this.#options.markDown(`${reason} (requests of several clients in a row)`)
    if (!state.up || this.#running !== undefined) return
    this.#running = this.#check().catch((err: unknown) => {
      this.#options.logger.error({ backend: this.#options.backend, err }, 'probe after a failed request failed')
    }).finally(() => { this.#running = undefined })
  }

  async #check(): Promise<void> {
    const down = await this.#options.probe()
    if (down !== undefined && this.#options.state.up) this.#options.markDown(down)
  }
}
