// Legacy session state shared by every replica (LEGACY-10, LEGACY-16): the log level and the
// subscriptions set through any replica are read, locally, by whichever one serves the session's
// next request or holds its GET stream; a change made elsewhere reaches the stream's replica by
// pub/sub (`watch`), so a subscription made via replica A delivers resources/updated on the GET
// stream held by B. Each change is one atomic script (read, change, write, publish). The GET stream
// claim names its replica: a claim by a replica that is gone (no liveness key) can be taken over.
import type { Logger } from '../../observability/logger.ts'
import { isLogLevel, type LogLevel } from '../../protocol/meta.ts'
import type { JsonObject } from '../../protocol/jsonrpc.ts'
import { MAX_SUBSCRIPTIONS_PER_SESSION, type SessionRegistry, type SessionState } from '../session-registry.ts'
import { LIVENESS_PREFIX, script, type RedisLink } from './redis-link.ts'
import { RedisMirror } from './redis-mirror.ts'

interface Entry {
  n: number
  level?: LogLevel
  subscriptions: readonly string[]
  holder?: string
}

// KEYS[1] the session; ARGV: op, argument, expiry ('' keeps it), channel, session id, holder,
// liveness prefix, subscription limit. Returns { status, state }.
const CHANGE = script(`
local raw = redis.call('GET', KEYS[1])
local op = ARGV[1]
if not raw and (op == 'unsub' or op == 'release') then return {'none', ''} end
if op == 'forget' then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[4], cjson.encode({id = ARGV[5], v = cjson.null, x = 0, by = ARGV[6]}))
  return {'ok', ''}
end
local s = raw and cjson.decode(raw) or {n = 0, l = false, h = false, s = {}}
if type(s.s) ~= 'table' then s.s = {} end
if op == 'level' then s.l = ARGV[2]
elseif op == 'sub' then
  local found = false
  for _, u in ipairs(s.s) do if u == ARGV[2] then found = true end end
  if not found then
    if #s.s >= tonumber(ARGV[8]) then return {'full', ''} end
    table.insert(s.s, ARGV[2])
  end
elseif op == 'unsub' then
  local kept = {}
  for _, u in ipairs(s.s) do if u ~= ARGV[2] then table.insert(kept, u) end end
  s.s = kept
elseif op == 'claim' then
  if s.h and redis.call('EXISTS', ARGV[7] .. s.h) == 1 then return {'busy', ''} end
  s.h = ARGV[6]
elseif op == 'release' then
  if s.h ~= ARGV[6] then return {'none', ''} end
  s.h = false
end
s.n = s.n + 1
local x = tonumber(ARGV[3]) or redis.call('PEXPIRETIME', KEYS[1])
if x <= 0 then return {'none', ''} end
s.x = x
local enc = cjson.encode(s)
redis.call('SET', KEYS[1], enc, 'PXAT', x)
redis.call('PUBLISH', ARGV[4], cjson.encode({id = ARGV[5], v = s, x = x, by = ARGV[6]}))
return {'ok', enc}`)

function decode(raw: JsonObject): Entry | undefined {
  if (typeof raw.n !== 'number') return undefined
  // cjson writes an empty Lua table as {}, not [].
  const subscriptions = Array.isArray(raw.s) ? raw.s.filter((u): u is string => typeof u === 'string') : []
  return { n: raw.n, level: isLogLevel(raw.l) ? raw.l : undefined, subscriptions, holder: typeof raw.h === 'string' ? raw.h : undefined }
}

const EMPTY: SessionState = Object.freeze({ subscriptions: Object.freeze([]) as readonly string[] })

export class RedisSessionRegistry implements SessionRegistry {
  readonly #link: RedisLink
  readonly #mirror: RedisMirror<Entry>

  constructor(link: RedisLink, logger: Logger) {
    this.#link = link
    this.#mirror = new RedisMirror({ link, logger, name: 'session', op: 'session', decode })
  }

  async read(sessionId: string): Promise<SessionState> {
    const entry = this.#mirror.get(sessionId)
    return entry === undefined ? EMPTY : { logLevel: entry.level, subscriptions: entry.subscriptions }
  }

  // A change made through another replica (undefined: the session was deleted).
  watch(listener: (sessionId: string, state: SessionState | undefined) => void): void {
    this.#mirror.watch((id, entry) => listener(id, entry === undefined ? undefined : { logLevel: entry.level, subscriptions: entry.subscriptions }))
  }

  async setLogLevel(sessionId: string, level: LogLevel, expiresAt: number): Promise<void> {
    await this.#change(sessionId, 'level', level, expiresAt)
  }

  async subscribe(sessionId: string, uri: string, expiresAt: number): Promise<readonly string[] | undefined> {
    const entry = await this.#change(sessionId, 'sub', uri, expiresAt)
    return entry?.subscriptions
  }

  async unsubscribe(sessionId: string, uri: string): Promise<readonly string[]> {
    return (await this.#change(sessionId, 'unsub', uri))?.subscriptions ?? this.#mirror.get(sessionId)?.subscriptions ?? []
  }

  async claimStream(sessionId: string, expiresAt: number): Promise<boolean> {
    return (await this.#change(sessionId, 'claim', '', expiresAt)) !== undefined
  }

  async releaseStream(sessionId: string): Promise<void> {
    await this.#change(sessionId, 'release', '')
  }

  async forget(sessionId: string): Promise<void> {
    await this.#change(sessionId, 'forget', '')
    this.#mirror.apply(sessionId, undefined, 0)
  }

  // The entry after the change (applied here at once); undefined when refused or nothing changed.
  async #change(sessionId: string, op: string, argument: string, expiresAt?: number): Promise<Entry | undefined> {
    const args = [op, argument, expiresAt === undefined ? '' : String(expiresAt), this.#mirror.channel, sessionId, this.#link.holder, LIVENESS_PREFIX, String(MAX_SUBSCRIPTIONS_PER_SESSION)]
    const [status, encoded] = await this.#link.eval<[string, string]>('session', CHANGE, [this.#mirror.key(sessionId)], args)
    if (status !== 'ok' || encoded === '') return undefined
    const raw = JSON.parse(encoded) as JsonObject
    const entry = decode(raw)
    if (entry !== undefined) this.#mirror.apply(sessionId, entry, raw.x as number)
    return entry
  }
}
