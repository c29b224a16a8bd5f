// Config loading: file (--config or MCP_GATEWAY_CONFIG) or the embedded default, then
// MCP_GATEWAY_* environment overrides, then one validation listing every error, then freeze.
import { readFileSync } from 'node:fs'
import type { GatewayConfig } from './types.ts'
import { validateConfig } from './schema.ts'
import { createDefaultConfig } from './default-config.ts'
import type { JsonObject } from '../protocol/jsonrpc.ts'

export class ConfigError extends Error {
  readonly errors: string[]
  constructor(errors: string[]) {
    super(`invalid configuration:\n  - ${errors.join('\n  - ')}`)
    this.name = 'ConfigError'
    this.errors = errors
  }
}

// Every environment variable the gateway reads (.env.example lists the same; a test checks).
export const ENV_SETTINGS = {
  MCP_GATEWAY_CONFIG: { key: undefined, kind: 'path' },
  MCP_GATEWAY_HOST: { key: 'host', kind: 'string' },
  MCP_GATEWAY_PORT: { key: 'port', kind: 'integer' },
  MCP_GATEWAY_LOG_LEVEL: { key: 'logLevel', kind: 'string' },
  MCP_GATEWAY_ALLOWED_HOSTS: { key: 'allowedHosts', kind: 'list' },
  MCP_GATEWAY_ALLOWED_ORIGINS: { key: 'allowedOrigins', kind: 'list' },
  MCP_GATEWAY_MAX_BODY_BYTES: { key: 'maxBodyBytes', kind: 'integer' },
  MCP_GATEWAY_SHUTDOWN_TIMEOUT_MS: { key: 'shutdownTimeoutMs', kind: 'integer' },
  MCP_GATEWAY_KEEP_ALIVE_MS: { key: 'keepAliveMs', kind: 'integer' },
  MCP_GATEWAY_STATE_SECRET: { key: 'stateSecret', kind: 'string' },
  MCP_GATEWAY_STATE_TTL_MS: { key: 'stateTtlMs', kind: 'integer' },
} as const

function parseEnvValue(kind: string, value: string): unknown {
  if (kind === 'integer') return /^\d+$/.test(value.trim()) ? Number(value) : value
  if (kind === 'list') return value.split(',').map((v) => v.trim()).filter((v) => v !== '')
  return value
}

function readConfigFile(path: string): JsonObject {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw new ConfigError([`config file ${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`])
  }
  try {
    return JSON.parse(text) as JsonObject
  } catch (err) {
    throw new ConfigError([`config file ${path}: not valid JSON (${(err as Error).message})`])
  }
}

function configPathFromArgv(argv: readonly string[]): string | undefined {
  const i = argv.indexOf('--config')
  if (i !== -1) return argv[i + 1]
  return argv.find((a) => a.startsWith('--config='))?.slice('--config='.length)
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner)
    Object.freeze(value)
  }
  return value
}

export interface LoadOptions {
  argv?: readonly string[]
  env?: NodeJS.ProcessEnv
}

export function loadConfig(options: LoadOptions = {}): GatewayConfig {
  const env = options.env ?? {}
  const path = configPathFromArgv(options.argv ?? []) ?? env.MCP_GATEWAY_CONFIG
  const raw: JsonObject = path ? readConfigFile(path) : createDefaultConfig()
  for (const [name, setting] of Object.entries(ENV_SETTINGS)) {
    const value = env[name]
    if (setting.key === undefined || value === undefined || value === '') continue
    raw[setting.key] = parseEnvValue(setting.kind, value)
  }
  const result = validateConfig(raw)
  if (!result.ok) throw new ConfigError(result.errors)
  return deepFreeze(result.config)
}
