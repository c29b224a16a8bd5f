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
