// The gateway's own credentials toward a protected HTTP backend (AUTH-8, G11, G12): a client-
// credentials token from a real authorization server, whose audience is the backend; renewed once
// after the backend's 401; a refusal that remains is -32603 without the backend's challenge; a
// client's Authorization header never reaches the backend.
import t from 'tap'
import { decodeJwt } from 'jose'
import { CLIENTS, startAuthorizationServer } from '../helpers/authorization-server.ts'
import { createRawClient } from '../helpers/mcp-client.ts'
import { startRecordingServer } from '../helpers/recording-sdk-server.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { createHash } from 'node:crypto'

t.test('client credentials toward a protected backend', async (t) => {
  const as = await startAuthorizationServer(t)
  const backend = await startRecordingServer(t, (resource) => ({
    auth: { resource, authorizationServers: [as.issuer], jwksUri: as.jwksUri, requiredScopes: ['backend'] },
  }))
  const gateway = await startGateway(t, {
    backends: [{
      name: 'secure', transport: 'http', url: backend.url, namespace: 's',
      auth: { type: 'clientCredentials', tokenUrl: as.tokenUrl, clientId: CLIENTS.gateway.id, clientSecret: CLIENTS.gateway.secret, scope: 'backend', audience: backend.url },
    }],
  })
  const tokenRequests = (): number => as.requests.filter((r) => r === 'POST /token').length
  t.ok(gateway.app.gateway.backends.entries[0].backend.status().up, 'the probe passed with the gateway\'s token')
  const client = createRawClient(t, gateway.url)
  const reply = await client.rpc('tools/call', { name: 's__echo', arguments: { text: 'hi' } }, { headers: { authorization: 'Bearer the-clients-own-token' } })
  t.equal(reply.status, 200, 'tools/call → 200')
  t.same(reply.json.result.content, [{ type: 'text', text: 'hi' }], 'the backend answered')
  const sent = backend.authorizations.at(-1)!
  t.match(decodeJwt(sent.replace(/^Bearer /, '')), { aud: backend.url, sub: CLIENTS.gateway.id, scope: 'backend' }, 'the backend saw the gateway\'s own token, for it')
  t.notOk(backend.authorizations.some((a) => a?.includes('the-clients-own-token')), 'the client\'s token never reached the backend (AUTH-8)')
  t.equal(tokenRequests(), 1, 'one token for the probe and the call')

  backend.refuseNext(1)
  const renewed = await client.rpc('tools/call', { name: 's__echo', arguments: { text: 'again' } })
  t.same(renewed.json.result?.content, [{ type: 'text', text: 'again' }], 'a 401 from the backend → a fresh token, the call succeeds')
  t.equal(tokenRequests(), 2, 'fetched once more')
  t.not(backend.authorizations.at(-1), sent, 'the retry carried the new token')

  backend.refuseNext(2)
  const refused = await client.rpc('tools/call', { name: 's__echo', arguments: { text: 'no' } })
  t.equal(refused.status, 200, 'still refused after the retry → in band (HTTP 200)')
  t.equal(refused.json.error?.code, -32603, '-32603')
  t.match(refused.json.error?.data, { 'io.github.mcp-gateway/origin': 'gateway', backend: 'secure', reason: 'unauthorized' }, 'a gateway-origin failure naming the backend')
  t.equal(refused.headers['www-authenticate'], undefined, 'the backend\'s challenge is not forwarded (G11)')
  t.notOk(refused.text.includes('resource_metadata'), 'nor named in the body')
})

t.test('token exchange: each caller\'s token exchanged for one for the backend (RFC 8693)', async (t) => {
  const as = await startAuthorizationServer(t)
  const backend = await startRecordingServer(t, (resource) => ({
    auth: { resource, authorizationServers: [as.issuer], jwksUri: as.jwksUri, requiredScopes: ['backend'] },
  }), { openDiscover: true })
  const resource = 'http://127.0.0.1:1/mcp'
  const apiKey = 'ci-bot-key-0123456789'
  const gateway = await startGateway(t, {
    auth: {
      resource, authorizationServers: [as.issuer], jwksUri: as.jwksUri, requiredScopes: ['mcp'],
      apiKeys: [{ name: 'ci-bot', sha256: createHash('sha256').update(apiKey).digest('hex') }],
    },
    backends: [{
      name: 'secure', transport: 'http', url: backend.url, namespace: 's',
      auth: { type: 'tokenExchange', tokenUrl: as.tokenUrl, clientId: CLIENTS.gateway.id, clientSecret: CLIENTS.gateway.secret, scope: 'backend', audience: backend.url },
    }],
  })
  t.ok(gateway.app.gateway.backends.entries[0].backend.status().up, 'probed without a caller, so without a token (the backend lets anyone probe)')
  const client = createRawClient(t, gateway.url)
  const exp = Math.floor(Date.now() / 1000) + 600
  const tokenOf = (sub: string) => as.keys.sign({ iss: as.issuer, aud: resource, sub, client_id: 'app', scope: 'mcp', exp })
  const alice = await tokenOf('alice')
  const call = (authorization: string, text: string) => client.rpc('tools/call', { name: 's__echo', arguments: { text } }, { headers: { authorization } })
  const reply = await call(`Bearer ${alice}`, 'hi')
  t.same(reply.json.result?.content, [{ type: 'text', text: 'hi' }], 'alice\'s call went through')
  const sent = backend.authorizations.at(-1)!.replace(/^Bearer /, '')
  t.match(decodeJwt(sent), { aud: backend.url, sub: 'alice', client_id: CLIENTS.gateway.id }, 'the backend saw a token for itself, for alice, obtained by the gateway')
  t.not(sent, alice, 'not alice\'s own token (AUTH-8)')
  await call(`Bearer ${await tokenOf('bob')}`, 'hi')
  t.match(decodeJwt(backend.authorizations.at(-1)!.replace(/^Bearer /, '')), { sub: 'bob' }, 'bob → his own exchanged token')
  t.same(as.exchanges.map((e) => e.subject).sort(), ['alice', 'bob'], 'one exchange each (lists and calls share it)')
  const keyed = await call(`Bearer ${apiKey}`, 'hi')
  t.equal(keyed.json.error?.code, -32603, 'an API key has no token to exchange → -32603')
  t.match(keyed.json.error?.data, { backend: 'secure', reason: 'unauthorized' }, 'naming the backend and why')
})
