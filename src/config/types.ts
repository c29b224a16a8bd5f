// The configuration contract (README "Configuration"). Validated once at boot, then frozen.
export interface BackendCommon {
  name: string
  // Prefix for this backend's tool and prompt names; "" when names cannot collide.
  namespace: string
  // Per-call timeout toward this backend (CANCEL-8).
  timeoutMs: number
}

export interface HttpBackendConfig extends BackendCommon {
  transport: 'http'
  url: string
  // Sent to this backend only (its own credentials; never the client's, AUTH-8).
  headers: Record<string, string>
  connections: number
  // Largest reply body accepted from this backend (a runaway one cannot exhaust memory).
  maxReplyBytes: number
}

export interface StdioBackendConfig extends BackendCommon {
  transport: 'stdio'
  command: string
  args: string[]
  // The child's whole environment: nothing of the gateway's own leaks in unless listed.
  env: Record<string, string>
  cwd?: string
  maxLineBytes: number
}

export type BackendConfig = HttpBackendConfig | StdioBackendConfig

export interface GatewayConfig {
  host: string
  port: number
  logLevel: string
  // Host header allow-list (DNS rebinding, SEC-1); lower-case host names, optional :port.
  allowedHosts: string[]
  // Origin allow-list (SEC-2); a request without Origin is allowed.
  allowedOrigins: string[]
  maxBodyBytes: number
  shutdownTimeoutMs: number
  // Keep-alive comment interval on long-lived SSE streams (SSE-5).
  keepAliveMs: number
  // Secret for sealing requestState and cursors; shared by every replica.
  stateSecret: string
  stateTtlMs: number
  namespaceSeparator: string
  // Items per page of an aggregated list.
  listPageSize: number
  backends: BackendConfig[]
}
