// The one connection pair to the shared-state Redis (README "Running N replicas"): a command client
// and a subscriber, through node-redis (@redis/client). Commands fail at once while Redis is
// unreachable (no offline queue: a request never waits for a reconnect) and after a bounded time
// when it hangs; both clients reconnect with backoff. Every command is counted by use, so the bench
// can print commands per request. Each replica has a random holder id: its hand-off channel, and a
// liveness key refreshed while it runs (a GET stream claimed by a dead replica can be claimed again).
import { randomBytes, createHash } from 'node:crypto'
import { createClient } from '@redis/client'
import { GatewayError } from '../../errors.ts'
import type { Logger } from '../../observability/logger.ts'
import type { RedisMetrics, RedisOp, SharedNeed } from '../../observability/redis-metrics.ts'

export const KEY_PREFIX = 'mcpgw:'
export const LIVENESS_PREFIX = `${KEY_PREFIX}replica:`
const COMMAND_TIMEOUT_MS = 1_000
const LIVENESS_TTL_MS = 15_000
const LIVENESS_EVERY_MS = 5_000
const MAX_BACKOFF_MS = 2_000
// What a failed command of each use leaves undone (mcp_gateway_shared_state_unavailable_total).
const NEED_OF: Partial<Record<RedisOp, SharedNeed>> = {
  hand_off: 'hand_off', session: 'session_state', ended: 'session_delete', replay: 'state_single_use', rate_limit: 'rate_limit',
}

export interface RedisLinkOptions {
  url: string
  logger: Logger
  metrics: RedisMetrics
}

export interface Script {
  source: string
  sha: string
}

export function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') }
}

type Client = ReturnType<typeof createClient>

export class RedisLink {
  readonly holder = randomBytes(9).toString('base64url')
  readonly #logger: Logger
  readonly #metrics: RedisMetrics
  readonly #commands: Client
  readonly #subscriber: Client
  readonly #channels = new Map<string, (message: string) => void>()
  readonly #onReady: Array<() => void> = []
  readonly #onDown: Array<() => void> = []
  #timer: NodeJS.Timeout | undefined
  #up = false
  #closed = false

  constructor(options: RedisLinkOptions) {
    this.#logger = options.logger
    this.#metrics = options.metrics
    const reconnectStrategy = (retries: number): number => Math.min(50 * 2 ** retries, MAX_BACKOFF_MS)
    this.#commands = createClient({ url: options.url, disableOfflineQueue: true, socket: { reconnectStrategy, connectTimeout: COMMAND_TIMEOUT_MS } })
    this.#subscriber = this.#commands.duplicate()
    this.#watch(this.#commands, 'commands')
    this.#watch(this.#subscriber, 'subscriber')
    this.#metrics.setUp(false)
  }

  // True while both connections are ready.
  get up(): boolean {
    return this.#up
  }

  // Connects in the background: a replica starts and serves without Redis (readyz says so).
  start(): void {
    for (const client of [this.#commands, this.#subscriber]) {
      client.connect().catch((err: unknown) => this.#logger.warn({ err: String(err) }, 'redis: first connection failed; retrying'))
    }
    this.#timer = setInterval(() => this.#beat(), LIVENESS_EVERY_MS)
    this.#timer.unref()
  }

  // Called after every (re)connection of both clients (mirrors reload what they may have missed).
  onReady(listener: () => void): void {
    this.#onReady.push(listener)
  }

  // Called when either connection is lost.
  onDown(listener: () => void): void {
    this.#onDown.push(listener)
  }

  // One channel, one listener; (re)subscribed while connected.
  subscribe(channel: string, listener: (message: string) => void): void {
    this.#channels.set(channel, listener)
    if (this.#subscriber.isReady) this.#subscriber.subscribe(channel, listener).catch(() => {})
  }

  async command<T>(op: RedisOp, args: string[]): Promise<T> {
    if (!this.#commands.isReady) throw this.#unavailable(op)
    this.#metrics.command(op)
    try {
      return await this.#commands.sendCommand<T>(args, { timeout: COMMAND_TIMEOUT_MS })
    } catch (err) {
      this.#metrics.failed(op)
      throw this.#unavailable(op, err)
    }
  }

  // EVALSHA, and EVAL once when Redis does not know the script yet (after a restart).
  async eval<T>(op: RedisOp, s: Script, keys: string[], args: string[]): Promise<T> {
    const tail = [String(keys.length), ...keys, ...args]
    try {
      return await this.command<T>(op, ['EVALSHA', s.sha, ...tail])
    } catch (err) {
      if (!(err instanceof GatewayError) || !String(err.cause).includes('NOSCRIPT')) throw err
      return this.command<T>(op, ['EVAL', s.source, ...tail])
    }
  }

  async close(): Promise<void> {
    this.#closed = true
    clearInterval(this.#timer)
    await Promise.all([this.#commands, this.#subscriber].map((c) => (c.isOpen ? c.close().catch(() => {}) : undefined)))
  }

  #unavailable(op: RedisOp, cause?: unknown): GatewayError {
    const need = NEED_OF[op]
    if (need !== undefined) this.#metrics.unavailable(need)
    return new GatewayError('MCP_GATEWAY_REPLICA_STATE_UNAVAILABLE', `redis ${op}: ${cause === undefined ? 'not connected' : String(cause)}`, { cause })
  }

  #watch(client: Client, role: string): void {
    client.on('error', () => this.#changed()) // logged on the up/down transition only
    client.on('end', () => this.#changed())
    client.on('ready', () => {
      if (role === 'subscriber') for (const [channel, listener] of this.#channels) client.subscribe(channel, listener).catch(() => {})
      this.#changed()
    })
  }

  #changed(): void {
    const up = this.#commands.isReady && this.#subscriber.isReady
    if (up === this.#up || this.#closed) return
    this.#up = up
    this.#metrics.setUp(up)
    if (up) {
      this.#logger.info({ holder: this.holder }, 'redis: connected; shared state available')
      this.#beat()
      for (const listener of this.#onReady) listener()
    } else {
      for (const listener of this.#onDown) listener()
      this.#logger.error('redis: unreachable; serving what needs no shared state (hand-offs, legacy session changes and single-use retries are refused; rate limits fail open)')
    }
  }

  #beat(): void {
    if (!this.#up) return
    this.command('liveness', ['SET', LIVENESS_PREFIX + this.holder, '1', 'PX', String(LIVENESS_TTL_MS)]).catch(() => {})
  }
}
