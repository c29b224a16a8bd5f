// Protocol versions the gateway serves to clients (VER-*, DISC-5).
export const MODERN_VERSION = '2026-07-28'
export const LEGACY_VERSION = '2025-11-25'

// Versions a modern client may name in _meta. Legacy ones are only reachable through initialize.
export const MODERN_VERSIONS: readonly string[] = [MODERN_VERSION]

// Legacy revisions whose backend messages the gateway relays as they are; the first is offered in
// initialize (LEGACY-C1), an answer with any other version marks the backend down
// (protocol/legacy/initialize.ts).
export const LEGACY_BACKEND_VERSIONS: readonly string[] = [LEGACY_VERSION, '2025-06-18', '2025-03-26']

export function isSupportedModernVersion(version: string): boolean {
  return MODERN_VERSIONS.includes(version)
}
