// The whole MCP authorization flow as a real client runs it: the SDK v2 client with its OAuth
// support against a protected MCP endpoint and a real authorization server (oidc-provider):
// 401 → Protected Resource Metadata → authorization server metadata → dynamic client registration
// → authorization code with PKCE and `resource` (consent driven through oidc-provider's own
// interaction pages) → token → calls succeed; a spoiled access token is refreshed.
import t from 'tap'
import { decodeJwt } from 'jose'
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client'
import { startAuthorizationServer } from '../helpers/authorization-server.ts'
import { approveAuthorization } from '../helpers/consent-driver.ts'
import { TestOAuthClient } from '../helpers/oauth-client.ts'
import { startProtectedServer } from '../helpers/protected-sdk-server.ts'

const REDIRECT = 'http://127.0.0.1:1/callback'

t.test('SDK client: discovery, registration, PKCE, token with resource, calls, refresh', async (t) => {
  const as = await startAuthorizationServer(t)
  const server = await startProtectedServer(t, (resource) => ({
    auth: { resource, authorizationServers: [as.issuer], jwksUri: as.jwksUri, requiredScopes: ['mcp'] },
  }))
  const oauth = new TestOAuthClient(REDIRECT)
  const connect = async (): Promise<Client> => {
    const client = new Client({ name: 'oauth-flow', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: oauth }))
    t.teardown(() => client.close())
    return client
  }
  const first = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: oauth })
  const unauthorized = await new Client({ name: 'oauth-flow', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    .connect(first).then(() => undefined, (err: unknown) => err)
  t.type(unauthorized, UnauthorizedError, 'no token → the client stops at the authorization redirect')
  t.equal(server.authorizations[0], undefined, 'the first request carried no token (and got the 401 challenge)')
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
  t.equal(server.authorizations.at(-1), `Bearer ${granted.access_token}`, 'every request carries it in the Authorization header')

  oauth.spoilAccessToken()
  const after = await client.callTool({ name: 'echo', arguments: { text: 'again' } })
  t.same(after.content, [{ type: 'text', text: 'again' }], 'a refused token → refreshed, and the call succeeds')
  t.equal(oauth.authorizations.length, 1, 'no second trip through the browser')
  t.equal(oauth.savedTokens.length, 2, 'new tokens from the refresh grant')
  t.not(oauth.tokens()!.access_token, granted.access_token, 'a new access token')
  t.ok(server.authorizations.includes('Bearer expired-or-revoked'), 'the spoiled token was tried and refused first')
})
