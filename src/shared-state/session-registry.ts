// The state of a legacy session that changes after initialize (LEGACY-16): the log level set with
// logging/setLevel, the resource subscriptions, and whether its GET stream is open (LEGACY-10:
// one per session). A port: this in-memory version serves one replica; a shared one (Redis) comes
// later for several. Entries live as long as their session (expiresAt).
import type { LogLevel } from '../protocol/meta.ts'
import { ExpiringMap } from './expiring-map.ts'

// Each upstream subscription holds a listen open: one session cannot ask for more than this.
export const MAX_SUBSCRIPTIONS_PER_SESSION = 256

export interface SessionState {
  logLevel?: LogLevel
  subscriptions: readonly string[]
}

export interface SessionRegistry {
  read(sessionId: string): Promise<SessionState>
  setLogLevel(sessionId: string, level: LogLevel, expiresAt: number): Promise<void>
  // The session's subscriptions after the change; undefined when the limit is reached.
  subscribe(sessionId: string, uri: string, expiresAt: number): Promise<readonly string[] | undefined>
  unsubscribe(sessionId: string, uri: string): Promise<readonly string[]>
  // LEGACY-10: false when the session's GET stream is open already.
  claimStream(sessionId: string, expiresAt: number): Promise<boolean>
  releaseStream(sessionId: string): Promise<void>
  // DELETE: everything the session held is dropped.
  forget(sessionId: string): Promise<void>
  // Shared implementations: a change made through another replica (undefined: the session was
  // deleted), so the replica holding the session's GET stream follows it.
  watch?(listener: (sessionId: string, state: SessionState | undefined) => void): void
}

interface Entry {
  logLevel?: LogLevel
  subscriptions: Set<string>
  streamOpen: boolean
}

const EMPTY: SessionState = Object.freeze({ subscriptions: Object.freeze([]) as readonly string[] })

export class MemorySessionRegistry implements SessionRegistry {
  readonly #entries: ExpiringMap<string, Entry>

  constructor(now: () => number = Date.now) {
    this.#entries = new ExpiringMap(now)
  }

  async read(sessionId: string): Promise<SessionState> {
    const entry = this.#entries.get(sessionId)
    if (entry === undefined) return EMPTY
    return { logLevel: entry.logLevel, subscriptions: [...entry.subscriptions] }
  }

  async setLogLevel(sessionId: string, level: LogLevel, expiresAt: number): Promise<void> {
    this.#entry(sessionId, expiresAt).logLevel = level
  }

  async subscribe(sessionId: string, uri: string, expiresAt: number): Promise<readonly string[] | undefined> {
    const entry = this.#entry(sessionId, expiresAt)
    if (!entry.subscriptions.has(uri) && entry.subscriptions.size >= MAX_SUBSCRIPTIONS_PER_SESSION) return undefined
    entry.subscriptions.add(uri)
    return [...entry.subscriptions]
  }

  async unsubscribe(sessionId: string, uri: string): Promise<readonly string[]> {
    const entry = this.#entries.get(sessionId)
    entry?.subscriptions.delete(uri)
    return entry === undefined ? [] : [...entry.subscriptions]
  }

  async claimStream(sessionId: string, expiresAt: number): Promise<boolean> {
    const entry = this.#entry(sessionId, expiresAt)
    if (entry.streamOpen) return false
    entry.streamOpen = true
    return true
  }

  async releaseStream(sessionId: string): Promise<void> {
    const entry = this.#entries.get(sessionId)
    if (entry !== undefined) entry.streamOpen = false
  }

  async forget(sessionId: string): Promise<void> {
    this.#entries.delete(sessionId)
  }

  #entry(sessionId: string, expiresAt: number): Entry {
    let entry = this.#entries.get(sessionId)
    if (entry === undefined) {
      entry = { subscriptions: new Set(), streamOpen: false }
      this.#entries.set(sessionId, entry, expiresAt)
    }
    return entry
  }
}
