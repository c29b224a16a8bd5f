// Ended legacy sessions shared by every replica (LEGACY-5): DELETE on one replica is refused (404)
// on all of them until the session would have expired. The check on every request of a session is
// local (a mirror fed by pub/sub, see redis-mirror.ts); only DELETE writes to Redis.
import type { Logger } from '../../observability/logger.ts'
import type { EndedSessions } from '../ended-sessions.ts'
import { script, type RedisLink } from './redis-link.ts'
import { RedisMirror, type Versioned } from './redis-mirror.ts'

// KEYS[1] the entry; ARGV: value, expiry (epoch ms), channel, message.
const SET_AND_PUBLISH = script(`
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1`)

const ENDED: Versioned = Object.freeze({ n: 1 })

export class RedisEndedSessions implements EndedSessions {
  readonly #link: RedisLink
  readonly #mirror: RedisMirror<Versioned>

  constructor(link: RedisLink, logger: Logger) {
    this.#link = link
    this.#mirror = new RedisMirror({ link, logger, name: 'ended', op: 'ended', decode: () => ENDED })
  }

  // Refused with MCP_GATEWAY_REPLICA_STATE_UNAVAILABLE when the others cannot be told (then nothing
  // changed anywhere, and the DELETE can be repeated).
  async end(sessionId: string, expiresAt: number): Promise<void> {
    const value = JSON.stringify({ n: 1, x: expiresAt })
    const message = JSON.stringify({ id: sessionId, v: { n: 1 }, x: expiresAt, by: this.#link.holder })
    await this.#link.eval('ended', SET_AND_PUBLISH, [this.#mirror.key(sessionId)], [value, String(expiresAt), this.#mirror.channel, message])
    this.#mirror.apply(sessionId, ENDED, expiresAt)
  }

  // A session ended through another replica.
  watch(listener: (sessionId: string) => void): void {
    this.#mirror.watch((id) => listener(id))
  }

  async isEnded(sessionId: string): Promise<boolean> {
    return this.#mirror.get(sessionId) !== undefined
  }
}
