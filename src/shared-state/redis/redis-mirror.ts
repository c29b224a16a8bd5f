// A local copy of one family of expiring Redis keys (`mcpgw:<name>:<id>`), kept current by the
// family's pub/sub channel and reloaded after every (re)connection, so reads never go to Redis:
// the plain request path (a legacy session's ended check, its log level) costs no round trip.
// Writers change Redis atomically (a script that also publishes) and apply their own change at once.
// Stored values and messages are JSON objects with `x` (expiry, epoch ms) and `n` (version: an
// older message arriving late never undoes a newer state).
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.ts'
import type { Logger } from '../../observability/logger.ts'
import type { RedisOp } from '../../observability/redis-metrics.ts'
import { ExpiringMap } from '../expiring-map.ts'
import { KEY_PREFIX, type RedisLink } from './redis-link.ts'

const SCAN_COUNT = '1000'

export interface Versioned {
  n: number
}

// A change made by another replica (undefined: the entry is gone).
export type MirrorListener<V> = (id: string, value: V | undefined) => void

export interface MirrorOptions<V extends Versioned> {
  link: RedisLink
  logger: Logger
  name: string
  op: RedisOp
  decode: (raw: JsonObject) => V | undefined
}

export class RedisMirror<V extends Versioned> {
  readonly channel: string
  readonly #prefix: string
  readonly #options: MirrorOptions<V>
  readonly #local = new ExpiringMap<string, V>()
  readonly #listeners: Array<MirrorListener<V>> = []

  constructor(options: MirrorOptions<V>) {
    this.#options = options
    this.#prefix = `${KEY_PREFIX}${options.name}:`
    this.channel = `${KEY_PREFIX}${options.name}`
    options.link.subscribe(this.channel, (message) => this.#receive(message))
    options.link.onReady(() => {
      this.#load().catch((err: unknown) => options.logger.warn({ err: String(err), mirror: options.name }, 'redis: reload of shared state failed'))
    })
  }

  key(id: string): string {
    return this.#prefix + id
  }

  get(id: string): V | undefined {
    return this.#local.get(id)
  }

  watch(listener: MirrorListener<V>): void {
    this.#listeners.push(listener)
  }

  // The writer's own change (or a received one); false when it is older than what is known.
  apply(id: string, value: V | undefined, expiresAt: number): boolean {
    const known = this.#local.get(id)
    if (value === undefined) return this.#local.delete(id)
    if (known !== undefined && known.n >= value.n) return false
    this.#local.set(id, value, expiresAt)
    return true
  }

  #receive(message: string): void {
    const parsed = parse(message)
    if (parsed === undefined || typeof parsed.id !== 'string') return
    // The writer applied its own change already; a message about it changes nothing here.
    if (parsed.by === this.#options.link.holder) return
    const value = isJsonObject(parsed.v) ? this.#options.decode(parsed.v) : undefined
    if (value === undefined && parsed.v !== null) return
    const changed = this.apply(parsed.id, value, typeof parsed.x === 'number' ? parsed.x : 0)
    if (changed || value === undefined) for (const listener of this.#listeners) listener(parsed.id, value)
  }

  // Everything of the family that is live in Redis (after a gap, messages may have been missed).
  async #load(): Promise<void> {
    const { link, op, decode } = this.#options
    let cursor = '0'
    do {
      const [next, keys] = await link.command<[string, string[]]>(op, ['SCAN', cursor, 'MATCH', `${this.#prefix}*`, 'COUNT', SCAN_COUNT])
      cursor = next
      if (keys.length === 0) continue
      const values = await link.command<Array<string | null>>(op, ['MGET', ...keys])
      keys.forEach((key, i) => {
        const raw = parse(values[i] ?? '')
        const value = raw === undefined ? undefined : decode(raw)
        if (value !== undefined && typeof raw?.x === 'number') this.apply(key.slice(this.#prefix.length), value, raw.x)
      })
    } while (cursor !== '0')
  }
}

function parse(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return isJsonObject(value) ? value : undefined
  } catch {
    return undefined
  }
}
