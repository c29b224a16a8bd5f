// Version negotiation for 2025-11-25-era clients (LEGACY-2, LEGACY-6). Pure.
import { LEGACY_BACKEND_VERSIONS } from '../version.ts'

// The legacy revisions the gateway speaks, newest first: the same list it offers legacy backends.
export const LEGACY_CLIENT_VERSIONS: readonly string[] = LEGACY_BACKEND_VERSIONS

export function isLegacyVersion(version: unknown): version is string {
  return typeof version === 'string' && LEGACY_CLIENT_VERSIONS.includes(version)
}

// LEGACY-2: the requested version when the gateway speaks it, else the newest one it does.
export function negotiateLegacyVersion(requested: unknown): string {
  return isLegacyVersion(requested) ? requested : LEGACY_CLIENT_VERSIONS[0]
}
