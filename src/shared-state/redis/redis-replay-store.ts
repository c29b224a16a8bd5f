// Single use of sealed MRTR state across replicas (MRTR-9): a claim is SET NX with the token's own
// expiry, so a replay reaching any replica is refused. Without Redis a retry cannot be proven
// first, so it is refused (fail closed, MCP_GATEWAY_REPLICA_STATE_UNAVAILABLE): single use is a
// security property, unlike a rate limit.
import type { ReplayStore } from '../../routing/replay-store.ts'
import { KEY_PREFIX, type RedisLink } from './redis-link.ts'

export class RedisReplayStore implements ReplayStore {
  readonly #link: RedisLink

  constructor(link: RedisLink) {
    this.#link = link
  }

  async claim(id: string, expiresAtMs: number): Promise<boolean> {
    const reply = await this.#link.command<string | null>('replay', ['SET', `${KEY_PREFIX}replay:${id}`, '1', 'NX', 'PXAT', String(Math.max(expiresAtMs, Date.now() + 1))])
    return reply === 'OK'
  }
}
