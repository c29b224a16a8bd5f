// Config validation: defaults inside, every error listed, unknown keys refused. Pure.
import type { BackendConfig, GatewayConfig, HttpBackendConfig, StdioBackendConfig } from './types.ts'
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.ts'
import { LOOPBACK_HOSTS } from '../protocol/origin.ts'

export const DEFAULTS = {
  host: '127.0.0.1',
  port: 8080,
  logLevel: 'info',
  allowedHosts: LOOPBACK_HOSTS,
  allowedOrigins: LOOPBACK_HOSTS.map((host) => host),
  maxBodyBytes: 4 * 1024 * 1024,
  shutdownTimeoutMs: 10_000,
  keepAliveMs: 15_000,
  stateSecret: '',
  stateTtlMs: 600_000,
  namespaceSeparator: '__',
  listPageSize: 500,
  backendTimeoutMs: 60_000,
  backendConnections: 64,
  maxReplyBytes: 64 * 1024 * 1024,
  maxLineBytes: 4 * 1024 * 1024,
} as const

const GATEWAY_KEYS = new Set(['host', 'port', 'logLevel', 'allowedHosts', 'allowedOrigins', 'maxBodyBytes',
  'shutdownTimeoutMs', 'keepAliveMs', 'stateSecret', 'stateTtlMs', 'namespaceSeparator', 'listPageSize', 'backends'])
const HTTP_KEYS = new Set(['name', 'transport', 'url', 'namespace', 'headers', 'timeoutMs', 'connections', 'maxReplyBytes'])
const STDIO_KEYS = new Set(['name', 'transport', 'command', 'args', 'env', 'cwd', 'namespace', 'timeoutMs', 'maxLineBytes'])
const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
const NAME = /^[A-Za-z0-9_.-]{1,64}$/
const NAMESPACE = /^[A-Za-z0-9_.-]{0,64}$/

class Collector {
  readonly errors: string[] = []
  add(path: string, problem: string): void {
    this.errors.push(`${path}: ${problem}`)
  }
  unknownKeys(path: string, raw: JsonObject, allowed: Set<string>): void {
    for (const key of Object.keys(raw)) if (!allowed.has(key)) this.add(`${path}.${key}`, 'unknown setting')
  }
  string(path: string, value: unknown, fallback?: string, pattern?: RegExp): string {
    if (value === undefined && fallback !== undefined) return fallback
    if (typeof value !== 'string') return this.#fail(path, 'must be a string', '')
    if (pattern && !pattern.test(value)) return this.#fail(path, `must match ${pattern}`, value)
    return value
  }
  integer(path: string, value: unknown, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    if (value === undefined) return fallback
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
      return this.#fail(path, `must be an integer from ${min} to ${max}`, fallback)
    }
    return value as number
  }
  stringList(path: string, value: unknown, fallback: readonly string[]): string[] {
    if (value === undefined) return [...fallback]
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return this.#fail(path, 'must be a list of strings', [])
    return value as string[]
  }
  stringMap(path: string, value: unknown): Record<string, string> {
    if (value === undefined) return {}
    if (!isJsonObject(value) || !Object.values(value).every((v) => typeof v === 'string')) {
      return this.#fail(path, 'must be an object of strings', {})
    }
    return { ...(value as Record<string, string>) }
  }
  #fail<T>(path: string, problem: string, fallback: T): T {
    this.add(path, problem)
    return fallback
  }
}

function validateHttp(c: Collector, path: string, raw: JsonObject): HttpBackendConfig {
  c.unknownKeys(path, raw, HTTP_KEYS)
  const url = c.string(`${path}.url`, raw.url)
  if (url && !/^https?:\/\//.test(url)) c.add(`${path}.url`, 'must be an http:// or https:// URL')
  return {
    name: c.string(`${path}.name`, raw.name, undefined, NAME),
    transport: 'http',
    url,
    namespace: c.string(`${path}.namespace`, raw.namespace, '', NAMESPACE),
    headers: c.stringMap(`${path}.headers`, raw.headers),
    timeoutMs: c.integer(`${path}.timeoutMs`, raw.timeoutMs, DEFAULTS.backendTimeoutMs, 1),
    connections: c.integer(`${path}.connections`, raw.connections, DEFAULTS.backendConnections, 1, 10_000),
    maxReplyBytes: c.integer(`${path}.maxReplyBytes`, raw.maxReplyBytes, DEFAULTS.maxReplyBytes, 1024),
  }
}

function validateStdio(c: Collector, path: string, raw: JsonObject): StdioBackendConfig {
  c.unknownKeys(path, raw, STDIO_KEYS)
  const config: StdioBackendConfig = {
    name: c.string(`${path}.name`, raw.name, undefined, NAME),
    transport: 'stdio',
    command: c.string(`${path}.command`, raw.command),
    args: c.stringList(`${path}.args`, raw.args, []),
    env: c.stringMap(`${path}.env`, raw.env),
    namespace: c.string(`${path}.namespace`, raw.namespace, '', NAMESPACE),
    timeoutMs: c.integer(`${path}.timeoutMs`, raw.timeoutMs, DEFAULTS.backendTimeoutMs, 1),
    maxLineBytes: c.integer(`${path}.maxLineBytes`, raw.maxLineBytes, DEFAULTS.maxLineBytes, 1024),
  }
  if (raw.cwd !== undefined) config.cwd = c.string(`${path}.cwd`, raw.cwd)
  return config
}

function validateBackend(c: Collector, path: string, raw: unknown): BackendConfig | undefined {
  if (!isJsonObject(raw)) {
    c.add(path, 'must be an object')
    return undefined
  }
  if (raw.transport === 'http') return validateHttp(c, path, raw)
  if (raw.transport === 'stdio') return validateStdio(c, path, raw)
  c.add(`${path}.transport`, 'must be "http" or "stdio"')
  return undefined
}

function validateBackends(c: Collector, raw: unknown): BackendConfig[] {
  if (raw === undefined) return []
  if (!Array.isArray(raw)) {
    c.add('backends', 'must be a list')
    return []
  }
  const backends = raw.map((b, i) => validateBackend(c, `backends[${i}]`, b)).filter((b) => b !== undefined)
  const names = new Set<string>()
  const namespaces = new Set<string>()
  for (const b of backends) {
    if (names.has(b.name)) c.add('backends', `duplicate backend name "${b.name}"`)
    // Names from two backends under one non-empty namespace could collide: refused at start.
    if (b.namespace !== '' && namespaces.has(b.namespace)) c.add('backends', `duplicate namespace "${b.namespace}"`)
    names.add(b.name)
    namespaces.add(b.namespace)
  }
  return backends
}

export type ConfigResult = { ok: true; config: GatewayConfig } | { ok: false; errors: string[] }

export function validateConfig(raw: unknown): ConfigResult {
  const c = new Collector()
  if (!isJsonObject(raw)) return { ok: false, errors: ['config: must be a JSON object'] }
  c.unknownKeys('config', raw, GATEWAY_KEYS)
  const logLevel = c.string('logLevel', raw.logLevel, DEFAULTS.logLevel)
  if (!LOG_LEVELS.has(logLevel)) c.add('logLevel', `must be one of ${[...LOG_LEVELS].join(', ')}`)
  const config: GatewayConfig = {
    host: c.string('host', raw.host, DEFAULTS.host),
    port: c.integer('port', raw.port, DEFAULTS.port, 0, 65_535),
    logLevel,
    allowedHosts: c.stringList('allowedHosts', raw.allowedHosts, DEFAULTS.allowedHosts).map((h) => h.toLowerCase()),
    allowedOrigins: c.stringList('allowedOrigins', raw.allowedOrigins, DEFAULTS.allowedOrigins).map((o) => o.toLowerCase()),
    maxBodyBytes: c.integer('maxBodyBytes', raw.maxBodyBytes, DEFAULTS.maxBodyBytes, 1024),
    shutdownTimeoutMs: c.integer('shutdownTimeoutMs', raw.shutdownTimeoutMs, DEFAULTS.shutdownTimeoutMs),
    keepAliveMs: c.integer('keepAliveMs', raw.keepAliveMs, DEFAULTS.keepAliveMs, 100),
    stateSecret: c.string('stateSecret', raw.stateSecret, DEFAULTS.stateSecret),
    stateTtlMs: c.integer('stateTtlMs', raw.stateTtlMs, DEFAULTS.stateTtlMs, 1000),
    namespaceSeparator: c.string('namespaceSeparator', raw.namespaceSeparator, DEFAULTS.namespaceSeparator, /^[A-Za-z0-9_.-]{1,4}$/),
    listPageSize: c.integer('listPageSize', raw.listPageSize, DEFAULTS.listPageSize, 1, 100_000),
    backends: validateBackends(c, raw.backends),
  }
  return c.errors.length > 0 ? { ok: false, errors: c.errors } : { ok: true, config }
}
