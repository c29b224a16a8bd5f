// Config loading: file (--config or MCP_GATEWAY_CONFIG) or the embedded default, then
// MCP_GATEWAY_* environment overrides, then one validation listing every error, then freeze.
import { readFileSync } from 'node:fs'
import { findCommandProblems } from './check-commands.ts'
import type { GatewayConfig } from './types.ts'
import { GATEWAY_SETTINGS, validateConfig } from './schema.ts'
import { createDefaultConfig } from './default-config.ts'
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.ts'
import { envSettingsOf, type EnvSetting } from './read-settings.ts'
import type { ScalarSetting } from './setting-types.ts'

export class ConfigError extends Error {
  readonly errors: string[]
  constructor(errors: string[]) {
    super(`invalid configuration:\n  - ${errors.join('\n  - ')}`)
    this.name = 'ConfigError'
    this.errors = errors
  }
}

// The config file, when not given by --config.
export const CONFIG_FILE_ENV = 'MCP_GATEWAY_CONFIG'

// Every setting the environment can override, from the schema (.env.example lists these and
// CONFIG_FILE_ENV; a test checks).
export const ENV_SETTINGS: ReadonlyMap<string, EnvSetting> = envSettingsOf(GATEWAY_SETTINGS)

// A value the validator will refuse is passed on as it is, so the error names the setting.
function parseEnvValue(setting: ScalarSetting, value: string): unknown {
  if (setting.type === 'integer') return /^\d+$/.test(value.trim()) ? Number(value) : value
  if (setting.type === 'boolean') return value.trim() === 'true' ? true : value.trim() === 'false' ? false : value
  if (setting.type === 'stringList') return value.split(',').map((v) => v.trim()).filter((v) => v !== '')
  return value
}

// Sets raw[path] (nested objects created as needed); a non-object on the way is left for the
// validator to report.
function setAtPath(raw: JsonObject, path: readonly string[], value: unknown): void {
  let target = raw
  for (const key of path.slice(0, -1)) {
    target[key] ??= {}
    if (!isJsonObject(target[key])) return
    target = target[key]
  }
  target[path[path.length - 1]] = value
}

// The value of a MCP_GATEWAY_<NAME>_FILE variable: the file's content without its final line end.
function readEnvFile(name: string, path: string): { value: string } | { problem: string } {
  try {
    return { value: readFileSync(path, 'utf8').replace(/\r?\n$/, '') }
  } catch (err) {
    return { problem: `${name}: file ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` }
  }
}

// Each variable of `table` that is set (an empty value means "not set") overrides its setting;
// a `_FILE` variable overrides it with the file's content. Returns the problems found (a file
// that cannot be read, a setting given both ways).
export function applyEnvOverrides(raw: JsonObject, env: NodeJS.ProcessEnv, table: ReadonlyMap<string, EnvSetting>): string[] {
  const problems: string[] = []
  const given = new Map<string, string>()
  for (const [name, { path, setting, fromFile }] of table) {
    const value = env[name]
    if (value === undefined || value === '') continue
    const key = path.join('.')
    const other = given.get(key)
    if (other !== undefined) problems.push(`${other} and ${name} are both set: give ${key} one way`)
    given.set(key, name)
    const read = fromFile ? readEnvFile(name, value) : { value }
    if ('problem' in read) problems.push(read.problem)
    else setAtPath(raw, path, parseEnvValue(setting, read.value))
  }
  return problems
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
  const path = configPathFromArgv(options.argv ?? []) ?? env[CONFIG_FILE_ENV]
  const raw: JsonObject = path ? readConfigFile(path) : createDefaultConfig()
  const envProblems = applyEnvOverrides(raw, env, ENV_SETTINGS)
  if (envProblems.length > 0) throw new ConfigError(envProblems)
  const result = validateConfig(raw)
  if (!result.ok) throw new ConfigError(result.errors)
  const commands = findCommandProblems(result.config)
  if (commands.length > 0) throw new ConfigError(commands)
  return deepFreeze(result.config)
}
