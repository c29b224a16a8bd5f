// The PRM routes: both well-known paths, no token needed, open CORS, the document from config.
import t from 'tap'
import Fastify from 'fastify'
import cors from '@fastify/cors'
import wellKnownRoutes from '../../../routes/well-known.ts'

const BODY = JSON.stringify({ resource: 'https://mcp.example.com/mcp', authorization_servers: ['https://login.example.com'], scopes_supported: ['mcp'], bearer_methods_supported: ['header'] })

t.test('served at both paths, from any origin', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  // As app.ts registers it: CORS only for allowed origins, POST only.
  await app.register(cors, { origin: (origin, cb) => cb(null, origin === 'http://localhost'), methods: ['POST'] })
  await app.register(wellKnownRoutes, { metadata: { paths: ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'], body: BODY } })
  for (const url of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
    const reply = await app.inject({ method: 'GET', url, headers: { origin: 'https://app.example.org', host: 'attacker.example' } })
    t.equal(reply.statusCode, 200, `GET ${url} → 200 without a token`)
    t.equal(reply.body, BODY, `${url} → the configured document (not derived from Host)`)
    t.match(reply.headers['content-type'], /^application\/json/, 'JSON')
    t.equal(reply.headers['access-control-allow-origin'], '*', 'any origin may read it')
    const preflight = await app.inject({ method: 'OPTIONS', url, headers: { origin: 'https://app.example.org', 'access-control-request-method': 'GET', 'access-control-request-headers': 'mcp-protocol-version' } })
    t.equal(preflight.statusCode, 204, `preflight ${url} → 204`)
    t.equal(preflight.headers['access-control-allow-origin'], '*', 'preflight → any origin')
  }
  const other = await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/other' })
  t.equal(other.statusCode, 404, 'another resource path → 404')
})
