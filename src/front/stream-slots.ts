// Long-lived streams (README "Limits"): subscriptions/listen and legacy GET streams each hold a
// socket and memory for as long as the client likes, so there are at most limits.streamsPerClient
// per client (the principal, or the client address) and limits.streams in all. Past either, 429 or
// 503 with Retry-After, counted.
import { GatewayError } from '../errors.ts'
import { LIMIT, type LimitMetrics } from '../observability/metrics.ts'
import { RETRY_AFTER_S } from './connection-gate.ts'

export interface StreamSlotOptions {
  perClient: number
  total: number
  metrics: LimitMetrics
}

const RETRY = { 'retry-after': String(RETRY_AFTER_S) }

export class StreamSlots {
  readonly #perClient: number
  readonly #total: number
  readonly #metrics: LimitMetrics
  readonly #held = new Map<string, number>()
  #open = 0

  constructor(options: StreamSlotOptions) {
    this.#perClient = options.perClient
    this.#total = options.total
    this.#metrics = options.metrics
  }

  get open(): number {
    return this.#open
  }

  // A slot for `client`, or the refusal; a slot taken is given back with release(client).
  take(client: string): GatewayError | undefined {
    const held = this.#held.get(client) ?? 0
    if (held >= this.#perClient) {
      this.#metrics.countRefusal(LIMIT.streamsPerClient, '')
      return new GatewayError('MCP_GATEWAY_LIMIT_STREAMS_PER_CLIENT', `at most ${this.#perClient}; retry after ${RETRY_AFTER_S} s`, { headers: RETRY })
    }
    if (this.#open >= this.#total) {
      this.#metrics.countRefusal(LIMIT.streamsTotal, '')
      return new GatewayError('MCP_GATEWAY_LIMIT_STREAMS', `retry after ${RETRY_AFTER_S} s`, { headers: RETRY })
    }
    this.#held.set(client, held + 1)
    this.#open++
    return undefined
  }

  release(client: string): void {
    const held = this.#held.get(client) ?? 0
    if (held <= 1) this.#held.delete(client)
    else this.#held.set(client, held - 1)
    this.#open--
  }
}
