// A real OAuth 2.1 authorization server for tests: oidc-provider on 127.0.0.1, port 0, with
// resource indicators (RFC 8707: JWT access tokens whose `aud` is the requested resource, any
// loopback resource accepted), client credentials, introspection, dynamic client registration,
// PKCE, refresh tokens, its dev interactions (login + consent forms, driven by consent-driver.ts)
// and an RFC 8693 token-exchange grant (registerGrantType; oidc-provider has none built in).
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'
import Provider, { errors } from 'oidc-provider'
import { request } from 'undici'
import { AsKeys } from './as-keys.ts'
import { registerTokenExchange, TOKEN_EXCHANGE_GRANT, type ExchangeRecord } from './token-exchange-grant.ts'

export const AS_SCOPES = ['mcp', 'mcp:admin', 'backend']

export interface TestClient {
  id: string
  secret: string
}

export const CLIENTS = {
  // Machine-to-machine tokens for the gateway's resource, JWT format.
  m2m: { id: 'm2m', secret: 'm2m-secret' },
  // Same, but opaque tokens (checked by introspection).
  opaque: { id: 'opaque-m2m', secret: 'opaque-secret' },
  // The gateway itself: introspects, and holds credentials toward backends.
  gateway: { id: 'gateway', secret: 'gateway-secret' },
} as const

export interface AuthorizationServer {
  issuer: string
  jwksUri: string
  tokenUrl: string
  introspectionUrl: string
  keys: AsKeys
  // Every token exchange performed (who exchanged whose token for which audience).
  exchanges: ExchangeRecord[]
  // Every request received, as "METHOD /path" (to count JWKS fetches and introspections).
  requests: string[]
  // A real token from the client-credentials grant.
  clientCredentials(options: { resource: string; scope: string; client?: TestClient }): Promise<string>
  close(): Promise<void>
}

function configuration(keys: AsKeys): Record<string, unknown> {
  const confidential = { grant_types: ['client_credentials', TOKEN_EXCHANGE_GRANT], response_types: [], redirect_uris: [], scope: AS_SCOPES.join(' ') }
  return {
    clients: Object.values(CLIENTS).map((c) => ({ client_id: c.id, client_secret: c.secret, ...confidential })),
    jwks: keys.privateJwks(),
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    scopes: ['openid', 'offline_access', ...AS_SCOPES],
    cookies: { keys: ['test-cookie-key-0123456789'] },
    ttl: { AccessToken: 600, ClientCredentials: 600, IdToken: 600, RefreshToken: 3600, Interaction: 600, Session: 600, Grant: 3600, AuthorizationCode: 60 },
    // Refresh tokens for every client allowed the grant (not only with offline_access).
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(g: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    clientBasedCORS: () => true,
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: { enabled: true, allowedPolicy: async () => true },
      revocation: { enabled: true, allowedPolicy: async () => true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string) => oneOf,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, resource: string, client: { clientId: string }) => {
          if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(resource)) throw new errors.InvalidTarget('only loopback resources here')
          const format = client.clientId === CLIENTS.opaque.id ? 'opaque' : 'jwt'
          return { scope: AS_SCOPES.join(' '), audience: resource, accessTokenTTL: 600, accessTokenFormat: format, jwt: { sign: { alg: 'RS256' } } }
        },
      },
    },
  }
}

export async function startAuthorizationServer(t: Test): Promise<AuthorizationServer> {
  const keys = await AsKeys.generate()
  let handler: ((req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void) | undefined
  const requests: string[] = []
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url?.split('?')[0]}`)
    handler!(req, res)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const provider = new Provider(issuer, configuration(keys))
  const exchanges: ExchangeRecord[] = []
  registerTokenExchange(provider, { issuer, jwks: keys.publicJwks(), exchanges })
  handler = provider.callback()
  const close = async (): Promise<void> => {
    if (!server.listening) return
    const closed = once(server, 'close')
    server.close()
    server.closeAllConnections()
    await closed
  }
  t.teardown(close)
  const tokenUrl = `${issuer}/token`
  return {
    issuer, jwksUri: `${issuer}/jwks`, tokenUrl, introspectionUrl: `${issuer}/token/introspection`, keys, exchanges, requests, close,
    clientCredentials: (options) => clientCredentials(tokenUrl, options),
  }
}

async function clientCredentials(tokenUrl: string, options: { resource: string; scope: string; client?: TestClient }): Promise<string> {
  const client = options.client ?? CLIENTS.m2m
  const body = new URLSearchParams({ grant_type: 'client_credentials', resource: options.resource, scope: options.scope })
  const response = await request(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}` },
    body: body.toString(),
  })
  const json = (await response.body.json()) as { access_token?: string; error?: string; error_description?: string }
  if (response.statusCode !== 200 || !json.access_token) throw new Error(`client_credentials: HTTP ${response.statusCode} ${json.error} ${json.error_description}`)
  return json.access_token
}
