// Legacy sessions ended by DELETE (LEGACY-5): a session id is self-contained and stays valid until
// it expires, so an ended one is remembered until then (404 afterwards, LEGACY-4). A port: this
// in-memory version serves one replica; a shared one (Redis) lets every replica know.
import { ExpiringMap } from './expiring-map.ts'

export interface EndedSessions {
  end(sessionId: string, expiresAt: number): Promise<void>
  isEnded(sessionId: string): Promise<boolean>
}

export class MemoryEndedSessions implements EndedSessions {
  readonly #ended: ExpiringMap<string, true>

  constructor(now: () => number = Date.now) {
    this.#ended = new ExpiringMap(now)
  }

  async end(sessionId: string, expiresAt: number): Promise<void> {
    this.#ended.set(sessionId, true, expiresAt)
  }

  async isEnded(sessionId: string): Promise<boolean> {
    return this.#ended.get(sessionId) === true
  }
}
