// Protocol versions the gateway serves to clients (VER-*, DISC-5).
export const MODERN_VERSION = '2026-07-28'
export const LEGACY_VERSION = '2025-11-25'

// Versions a modern client may name in _meta. Legacy ones are only reachable through initialize.
export const MODERN_VERSIONS: readonly string[] = [MODERN_VERSION]

export function isSupportedModernVersion(version: string): boolean {
  return MODERN_VERSIONS.includes(version)
}
