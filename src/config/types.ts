// The configuration contract (README "Configuration"), derived from the one schema (schema.ts):
// validated once at boot, then frozen. What each setting means is its `doc` there.
import type { GATEWAY_SETTINGS } from './schema.ts'
import type { ConfigOf } from './setting-types.ts'

export type GatewayConfig = ConfigOf<typeof GATEWAY_SETTINGS>
export type BackendConfig = GatewayConfig['backends'][number]
export type HttpBackendConfig = Extract<BackendConfig, { transport: 'http' }>
export type StdioBackendConfig = Extract<BackendConfig, { transport: 'stdio' }>
