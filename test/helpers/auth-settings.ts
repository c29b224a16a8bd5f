// Authentication settings as build() derives them, from a raw config that must validate.
import { deriveAuthSettings } from '../../src/auth/auth-config.ts'
import type { AuthSettings } from '../../src/auth/auth-types.ts'
import { validateConfig } from '../../src/config/schema.ts'

export function settingsFor(raw: Record<string, unknown>): AuthSettings {
  const result = validateConfig(raw)
  if (!result.ok) throw new Error(result.errors.join('; '))
  return deriveAuthSettings(result.config)
}
