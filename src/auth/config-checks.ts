// Field checks for the authentication settings: each check notes every problem with its path and
// returns a usable fallback, so one pass lists every error (like the rest of the config).
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.ts'
import { checkEndpointUrl } from './auth-urls.ts'

export class Checks {
  readonly errors: string[] = []

  add(path: string, problem: string): void {
    this.errors.push(`${path}: ${problem}`)
  }

  object(path: string, value: unknown, allowed: ReadonlySet<string>): JsonObject | undefined {
    if (!isJsonObject(value)) {
      this.add(path, 'must be an object')
      return undefined
    }
    for (const key of Object.keys(value)) if (!allowed.has(key)) this.add(`${path}.${key}`, 'unknown setting')
    return value
  }

  string(path: string, value: unknown): string {
    if (typeof value === 'string' && value !== '') return value
    this.add(path, 'must be a non-empty string')
    return ''
  }

  optionalString(path: string, value: unknown): string | undefined {
    return value === undefined ? undefined : this.string(path, value)
  }

  url(path: string, value: unknown): string {
    const url = this.string(path, value)
    const problem = url === '' ? undefined : checkEndpointUrl(url)
    if (problem !== undefined) this.add(path, problem)
    return url
  }

  stringList(path: string, value: unknown, fallback: readonly string[]): string[] {
    if (value === undefined) return [...fallback]
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v !== '')) {
      this.add(path, 'must be a list of non-empty strings')
      return []
    }
    return [...(value as string[])]
  }

  // Scope tokens (RFC 6749 §3.3): printable ASCII without space, quote or backslash.
  scopeList(path: string, value: unknown, fallback: readonly string[]): string[] {
    const scopes = this.stringList(path, value, fallback)
    for (const scope of scopes) {
      if (!/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(scope)) this.add(path, `"${scope}" is not a valid scope token`)
    }
    return scopes
  }

  integer(path: string, value: unknown, fallback: number, range: { min: number; max: number }): number {
    if (value === undefined) return fallback
    if (Number.isInteger(value) && (value as number) >= range.min && (value as number) <= range.max) return value as number
    this.add(path, `must be an integer from ${range.min} to ${range.max}`)
    return fallback
  }

  boolean(path: string, value: unknown, fallback: boolean): boolean {
    if (value === undefined) return fallback
    if (typeof value === 'boolean') return value
    this.add(path, 'must be true or false')
    return fallback
  }
}
