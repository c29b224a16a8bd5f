// The whole MCP authorization flow as a real client runs it: the SDK v2 client with its OAuth
// support against the gateway and a real authorization server (oidc-provider), a backend behind:
// 401 → Protected Resource Metadata → authorization server metadata → dynamic client registration
// → authorization code with PKCE and `resource` (consent driven through oidc-provider's own
// interaction pages) → token → calls succeed; a spoiled access token is refreshed.
import t from 'tap'
import { Agent, fetch as undiciFetch } from 'undici'
import { decodeJwt } from 'jose'
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client'
import { startAuthorizationServer } from '../helpers/authorization-server.ts'
import { approveAuthorization } from '../helpers/consent-driver.ts'
import { TestOAuthClient } from '../helpers/oauth-client.ts'
import { startRecordingServer } from '../helpers/recording-sdk-server.ts'
import { findFreePort } from '../helpers/ports.ts'
import { startGateway } from '../helpers/start-gateway.ts'

const REDIRECT = 'http://127.0.0.1:1/callback'

t.test('SDK client: discovery, registration, PKCE, token with resource, calls, refresh', async (t) => {
  const as = await startAuthorizationServer(t)
  const backend = await startRecordingServer(t)
  // The gateway's resource must be the URL the client uses (the SDK checks the metadata's resource).
  const port = await findFreePort()
  const resource = `http://127.0.0.1:${port}/mcp`
  const server = await startGateway(t, {
    auth: { resource, authorizationServers: [as.issuer], jwksUri: as.jwksUri, requiredScopes: ['mcp'] },
    backends: [{ name: 'rec', transport: 'http', url: backend.url, namespace: '' }],
  }, { port })
  // What the client sent to the MCP endpoint and what it got back, as its own fetch saw it.
  const exchanges: Array<{ authorization: string | undefined; status: number; challenge: string | null }> = []
  // On a pool of its own, destroyed at teardown (no socket outlives the test).
  const agent = new Agent({ keepAliveTimeout: 1_000 })
  t.teardown(() => agent.destroy())
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await (undiciFetch(input as string, { ...init, dispatcher: agent } as Parameters<typeof undiciFetch>[1]) as unknown as Promise<Response>)
    if (String(input instanceof Request ? input.url : input) === server.url) {
      exchanges.push({ authorization: new Headers(init?.headers).get('authorization') ?? undefined, status: response.status, challenge: response.headers.get('www-authenticate') })
    }
    return response
  }
  const seen = { at: (i: number) => exchanges.at(i)?.authorization, includes: (a: string) => exchanges.some((e) => e.authorization === a) }
  const oauth = new TestOAuthClient(REDIRECT)
  const connect = async (): Promise<Client> => {
    const client = new Client({ name: 'oauth-flow', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: oauth, fetch }))
    t.teardown(() => client.close())
    return client
  }
  const first = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: oauth, fetch })
  const unauthorized = await new Client({ name: 'oauth-flow', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    .connect(first).then(() => undefined, (err: unknown) => err)
  t.type(unauthorized, UnauthorizedError, 'no token → the client stops at the authorization redirect')
  t.match(exchanges[0], { authorization: undefined, status: 401, challenge: /^Bearer resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp", scope="mcp"$/ },
    'the first request carried no token and got the 401 challenge')
  const authorization = oauth.authorizations[0]
  t.ok(authorization, 'the client was sent to the authorization endpoint')
  t.equal(authorization.origin, as.issuer, 'of the authorization server named in the metadata')
  t.equal(authorization.searchParams.get('resource'), server.url, 'resource = the MCP server (RFC 8707)')
  t.equal(authorization.searchParams.get('code_challenge_method'), 'S256', 'PKCE S256')
  t.ok(authorization.searchParams.get('scope')?.split(' ').includes('mcp'), 'scope from the challenge (plus offline_access, which the SDK adds)')
  t.ok(oauth.clientInformation()?.client_id, 'registered dynamically at the AS')
  t.ok(as.requests.includes('GET /.well-known/oauth-authorization-server'), 'AS metadata discovered')
  t.ok(as.requests.includes('POST /reg'), 'dynamic client registration')

  const callback = await approveAuthorization(authorization, { redirectUri: REDIRECT, login: 'alice' })
  t.ok(callback.searchParams.get('code'), 'consent given → an authorization code')
  await first.finishAuth(callback.searchParams)
  const granted = oauth.tokens()!
  t.match(decodeJwt(granted.access_token), { aud: server.url, sub: 'alice', scope: 'mcp', iss: as.issuer }, 'a JWT for this resource, for alice')
  t.ok(granted.refresh_token, 'and a refresh token')

  const client = await connect()
  const result = await client.callTool({ name: 'echo', arguments: { text: 'hello' } })
  t.same(result.content, [{ type: 'text', text: 'hello' }], 'tools/call succeeds with the token')
  t.equal(seen.at(-1), `Bearer ${granted.access_token}`, 'every request carries it in the Authorization header')
  t.ok(backend.authorizations.every((a) => a === undefined), 'and none reaches the backend (AUTH-8)')

  oauth.spoilAccessToken()
  const after = await client.callTool({ name: 'echo', arguments: { text: 'again' } })
  t.same(after.content, [{ type: 'text', text: 'again' }], 'a refused token → refreshed, and the call succeeds')
  t.equal(oauth.authorizations.length, 1, 'no second trip through the browser')
  t.equal(oauth.savedTokens.length, 2, 'new tokens from the refresh grant')
  t.not(oauth.tokens()!.access_token, granted.access_token, 'a new access token')
  t.ok(seen.includes('Bearer expired-or-revoked'), 'the spoiled token was tried and refused first')
})
