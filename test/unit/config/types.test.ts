// The config types are derived from the schema (types.ts): this pins them to the configuration
// contract (README "Configuration"), key for key, at compile time (tsc) and at run time.
import t from 'tap'
import { validateConfig } from '../../../src/config/schema.ts'
import type { GatewayConfig, HttpBackendConfig, StdioBackendConfig } from '../../../src/config/types.ts'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false

interface ClientCredentialsContract {
  type: 'clientCredentials'
  readonly tokenUrl: string
  readonly clientId: string
  readonly clientSecret: string
  readonly scope?: string
  readonly audience?: string
}

interface TokenExchangeContract {
  type: 'tokenExchange'
  readonly tokenUrl: string
  readonly clientId: string
  readonly clientSecret: string
  readonly scope?: string
  readonly audience?: string
}

type BackendAuthContract = ClientCredentialsContract | TokenExchangeContract

interface AuthContract {
  readonly resource: string
  readonly authorizationServers: string[]
  readonly issuer?: string
  readonly jwksUri?: string
  readonly audience?: string
  readonly algorithms: string[]
  readonly requiredScopes: string[]
  readonly scopesSupported?: string[]
  readonly scopeHierarchy: Record<string, string>
  readonly clockToleranceS: number
  readonly apiKeys: Array<{ readonly name: string; readonly sha256: string; readonly scopes?: string[] }>
  readonly introspection?: { readonly url: string; readonly clientId: string; readonly clientSecret: string }
}

interface PolicyRuleContract {
  readonly tools: string[]
  readonly prompts: string[]
  readonly resources: string[]
  readonly scopes: string[]
}

interface HttpContract {
  readonly name: string
  transport: 'http'
  readonly namespace: string
  readonly timeoutMs: number
  readonly required?: boolean
  readonly forwardBaggage?: boolean
  readonly url: string
  readonly headers: Record<string, string>
  readonly connections: number
  readonly maxReplyBytes: number
  readonly downAfterFailures: number
  readonly auth?: BackendAuthContract
  readonly tls?: { readonly caFile?: string; readonly serverName?: string; readonly rejectUnauthorized: boolean }
  readonly http2: boolean
}

interface StdioContract {
  readonly name: string
  transport: 'stdio'
  readonly namespace: string
  readonly timeoutMs: number
  readonly required?: boolean
  readonly forwardBaggage?: boolean
  readonly command: string
  readonly args: string[]
  readonly env: Record<string, string>
  readonly cwd?: string
  readonly envFiles: Record<string, string>
  readonly user?: string
  readonly group?: string
  readonly maxLineBytes: number
  readonly concurrency: number
}

interface GatewayContract {
  readonly host: string
  readonly port: number
  readonly logLevel: string
  readonly allowedHosts: string[]
  readonly allowedOrigins: string[]
  readonly maxBodyBytes: number
  readonly shutdownTimeoutMs: number
  readonly keepAliveMs: number
  readonly stateSecret: string
  readonly stateTtlMs: number
  readonly namespaceSeparator: string
  readonly listPageSize: number
  readonly listPollMs: number
  readonly legacyClients: boolean
  readonly sessionTtlMs: number
  readonly clientAnswerTimeoutMs: number
  readonly redisUrl: string
  readonly limits: {
    readonly callsPerClient: number
    readonly queuedCalls: number
    readonly queueTimeoutMs: number
    readonly replyBytesInFlight: number
    readonly listRefreshMs: number
    readonly bodyIdleMs: number
    readonly bodyTimeoutMs: number
    readonly connections: number
    readonly streamsPerClient: number
    readonly streams: number
    readonly streamQueueBytes: number
  }
  readonly backends: Array<HttpContract | StdioContract>
  readonly auth?: AuthContract
  readonly policy: PolicyRuleContract[]
  readonly rateLimit?: { readonly requestsPerMinute: number; readonly burst?: number }
  readonly trustProxy: boolean
  readonly toolLabelLimit: number
  readonly minBackendsUp?: number
  readonly drainDelayMs: number
  readonly adminToken: string
  readonly tls?: {
    readonly certFile: string
    readonly keyFile: string
    readonly caFile?: string
    readonly requestClientCert: boolean
    readonly minVersion: string
  }
  readonly http2: string
}

const TYPES_MATCH: [Equal<HttpBackendConfig, HttpContract>, Equal<StdioBackendConfig, StdioContract>, Equal<GatewayConfig, GatewayContract>] = [true, true, true]

t.test('derived config types → the contract (checked by tsc)', async (t) => {
  t.same(TYPES_MATCH, [true, true, true])
})

t.test('validated config → exactly the contract\'s keys', async (t) => {
  const result = validateConfig({
    backends: [
      { name: 'h', transport: 'http', url: 'http://h/mcp' },
      { name: 's', transport: 'stdio', command: 'node', cwd: '/srv' },
    ],
  })
  if (!result.ok) return t.fail(result.errors.join('; '))
  const cases: Array<[string, object, string[]]> = [
    ['gateway', result.config, ['adminToken', 'allowedHosts', 'allowedOrigins', 'backends', 'clientAnswerTimeoutMs', 'drainDelayMs', 'host', 'http2', 'keepAliveMs', 'legacyClients', 'limits', 'listPageSize', 'listPollMs', 'logLevel', 'maxBodyBytes',
      'namespaceSeparator', 'policy', 'port', 'redisUrl', 'sessionTtlMs', 'shutdownTimeoutMs', 'stateSecret', 'stateTtlMs', 'toolLabelLimit', 'trustProxy']],
    ['http backend', result.config.backends[0], ['connections', 'downAfterFailures', 'headers', 'http2', 'maxReplyBytes', 'name', 'namespace', 'timeoutMs', 'transport', 'url']],
    ['stdio backend', result.config.backends[1], ['args', 'command', 'concurrency', 'cwd', 'env', 'envFiles', 'maxLineBytes', 'name', 'namespace', 'timeoutMs', 'transport']],
  ]
  for (const [name, value, keys] of cases) t.same(Object.keys(value).sort(), keys, `${name} → ${keys.join(', ')}`)
})
