// Reads raw JSON against a schema (setting-types.ts): defaults filled in, every problem reported
// with its path (nothing stops at the first), unknown keys refused. Pure.
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.ts'
import type { ListSetting, ScalarSetting, Setting, Settings, StringSetting, VariantSetting } from './setting-types.ts'

export type Report = (path: string, problem: string) => void

interface At {
  // Dotted path of the value ("" for the top level), as error messages show it.
  path: string
  report: Report
}

function child(at: At, key: string): At {
  return { path: at.path === '' ? key : `${at.path}.${key}`, report: at.report }
}

const MAX_ECHO_CHARS = 60

// The offending value as the user wrote it, shortened: `"8080"`, `70000`, `[1,2]`.
export function describeValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > MAX_ECHO_CHARS ? `${text.slice(0, MAX_ECHO_CHARS)}…` : text
}

// A failed value reads as undefined: the problem is reported, with the value given (when there
// was one), and the config as a whole refused.
function fail(at: At, problem: string, value?: unknown): undefined {
  at.report(at.path, value === undefined ? problem : `${problem}, got ${describeValue(value)}`)
  return undefined
}

// Edit distance, for "did you mean" on an unknown key (keys are short: the table stays small).
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]
}

// The closest known key, when it is close enough to be a likely typo.
export function suggestKey(unknown: string, known: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Math.max(2, Math.floor(unknown.length / 3)) + 1
  for (const key of known) {
    const d = distance(unknown, key)
    if (d < bestDistance) [best, bestDistance] = [key, d]
  }
  return best
}

function unknownKey(key: string, settings: Settings): string {
  const suggestion = suggestKey(key, Object.keys(settings))
  return suggestion === undefined ? 'unknown setting' : `unknown setting; did you mean "${suggestion}"?`
}

function readString(setting: StringSetting, value: unknown, at: At): string | undefined {
  // A secret is never echoed in an error message.
  const shown = setting.secret ? undefined : value
  if (typeof value !== 'string') return fail(at, 'must be a string', shown)
  const bytes = Buffer.byteLength(value, 'utf8')
  if (setting.minBytes !== undefined && value !== '' && bytes < setting.minBytes) {
    return fail(at, `must be at least ${setting.minBytes} bytes, got ${bytes}`)
  }
  if (setting.pattern && !setting.pattern.test(value)) return fail(at, setting.patternProblem ?? `must match ${setting.pattern}`, shown)
  if (setting.oneOf && !setting.oneOf.includes(value)) return fail(at, `must be one of ${setting.oneOf.join(', ')}`, shown)
  return value
}

function readScalar(setting: ScalarSetting, value: unknown, at: At): unknown {
  switch (setting.type) {
    case 'string':
      return readString(setting, value, at)
    case 'integer': {
      const min = setting.min ?? 0
      const max = setting.max ?? Number.MAX_SAFE_INTEGER
      const ok = Number.isInteger(value) && (value as number) >= min && (value as number) <= max
      return ok ? value : fail(at, `must be an integer from ${min} to ${max}`, value)
    }
    case 'boolean':
      return typeof value === 'boolean' ? value : fail(at, 'must be true or false', value)
    case 'stringList':
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return fail(at, 'must be a list of strings', value)
      return setting.lowerCase ? value.map((v: string) => v.toLowerCase()) : [...value]
  }
}

function readStringMap(value: unknown, at: At): Record<string, string> | undefined {
  if (!isJsonObject(value) || !Object.values(value).every((v) => typeof v === 'string')) return fail(at, 'must be an object of strings', value)
  return { ...(value as Record<string, string>) }
}

function readList(setting: ListSetting, value: unknown, at: At): unknown[] | undefined {
  if (!Array.isArray(value)) return fail(at, 'must be a list', value)
  const items = value.map((item, i) => readSetting(setting.of, item, { path: `${at.path}[${i}]`, report: at.report }))
  const read = items.filter((item) => item !== undefined)
  setting.check?.(read as Array<Record<string, unknown>>, (problem) => at.report(at.path, problem))
  return read
}

function readVariant(setting: VariantSetting, value: unknown, at: At): JsonObject | undefined {
  if (!isJsonObject(value)) return fail(at, 'must be an object', value)
  const tag = value[setting.key]
  if (typeof tag !== 'string' || !Object.hasOwn(setting.variants, tag)) {
    const names = Object.keys(setting.variants).map((name) => JSON.stringify(name))
    return fail(child(at, setting.key), `must be ${names.join(' or ')}`, tag)
  }
  const rest = Object.fromEntries(Object.entries(value).filter(([key]) => key !== setting.key))
  return { [setting.key]: tag, ...readSettings(setting.variants[tag], rest, at) }
}

// The value when the key is absent: the default, else nothing (optional), else what an empty
// container reads as; a required scalar reads `undefined` and so reports itself.
function readAbsent(setting: Setting, at: At): unknown {
  if ('default' in setting && setting.default !== undefined) return structuredClone(setting.default)
  if (setting.optional) return undefined
  if (setting.type === 'stringMap') return {}
  if (setting.type === 'list') return []
  if (setting.type === 'object') return readSettings(setting.settings, {}, at)
  return readPresent(setting, undefined, at)
}

function readPresent(setting: Setting, value: unknown, at: At): unknown {
  switch (setting.type) {
    case 'stringMap':
      return readStringMap(value, at)
    case 'object':
      return isJsonObject(value) ? readSettings(setting.settings, value, at) : fail(at, 'must be an object', value)
    case 'list':
      return readList(setting, value, at)
    case 'variant':
      return readVariant(setting, value, at)
    default:
      return readScalar(setting, value, at)
  }
}

export function readSetting(setting: Setting, value: unknown, at: At): unknown {
  return value === undefined ? readAbsent(setting, at) : readPresent(setting, value, at)
}

// Every declared setting in declaration order, after the unknown keys (reported under "config."
// at the top level).
export function readSettings(settings: Settings, raw: JsonObject, at: At): JsonObject {
  const owner = at.path === '' ? 'config' : at.path
  for (const key of Object.keys(raw)) if (!Object.hasOwn(settings, key)) at.report(`${owner}.${key}`, unknownKey(key, settings))
  const out: JsonObject = {}
  for (const [key, setting] of Object.entries(settings)) {
    const value = readSetting(setting, raw[key], child(at, key))
    if (value !== undefined) out[key] = value
  }
  return out
}

// A setting read from the environment: where it goes in the config. `fromFile`: the variable
// names a file holding the value (MCP_GATEWAY_<NAME>_FILE).
export interface EnvSetting {
  path: readonly string[]
  setting: ScalarSetting
  fromFile?: true
}

// Every setting with an `env` variable (and its `_FILE` twin when it has `envFile`), nested
// objects included (lists and variants have none).
export function envSettingsOf(settings: Settings, prefix: readonly string[] = []): Map<string, EnvSetting> {
  const found = new Map<string, EnvSetting>()
  for (const [key, setting] of Object.entries(settings)) {
    const path = [...prefix, key]
    if (setting.type === 'object') for (const [name, env] of envSettingsOf(setting.settings, path)) found.set(name, env)
    else if ('env' in setting && setting.env !== undefined) {
      found.set(setting.env, { path, setting })
      if (setting.envFile) found.set(`${setting.env}_FILE`, { path, setting, fromFile: true })
    }
  }
  return found
}
