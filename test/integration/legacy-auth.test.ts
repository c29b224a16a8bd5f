// Legacy sessions under authentication (AUTH-6, AUTH-16, MRTR-9): every 2025-11-25
// request — POST, GET and DELETE — is admitted like a modern one, and a session id is bound to the
// caller that opened it: presented by another caller it is unknown (404). Real peers: the v1 SDK
// client with a bearer API key, raw undici requests, an SDK v2 HTTP backend.
import { createHash } from 'node:crypto'
import t from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { startFixture } from '../helpers/backend-process.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { createRawClient } from '../helpers/mcp-client.ts'
import { LEGACY_VERSION, createFetch, sessionHeaders } from '../helpers/legacy-client.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname
const ALICE = 'alice-key-0123456789abcdef'
const BOB = 'bob-key-0123456789abcdef01'
const sha256 = (key: string): string => createHash('sha256').update(key).digest('hex')

const alpha = await startFixture(t, BACKEND, ['--name', 'alpha'])
const gateway = await startGateway(t, {
  auth: {
    resource: 'http://127.0.0.1:1/mcp', authorizationServers: ['http://127.0.0.1:1'], requiredScopes: ['mcp'],
    apiKeys: [{ name: 'alice', sha256: sha256(ALICE), scopes: ['mcp'] }, { name: 'bob', sha256: sha256(BOB), scopes: ['mcp'] }],
  },
  backends: [{ name: 'a', transport: 'http', url: alpha.url, namespace: 'a' }],
})
const raw = createRawClient(t, gateway.url)
const as = (key: string | undefined): Record<string, string> => (key === undefined ? {} : { authorization: `Bearer ${key}` })

t.test('v1 SDK client with a bearer key → session, calls, GET stream, DELETE', async (t) => {
  const pool = createFetch()
  const transport = new StreamableHTTPClientTransport(new URL(gateway.url), { fetch: pool.fetch, requestInit: { headers: as(ALICE) } })
  const client = new Client({ name: 'v1-authed', version: '1.0.0' })
  t.teardown(async () => {
    await client.close()
    await pool.destroy()
  })
  await client.connect(transport)
  t.match(await client.callTool({ name: 'a__echo', arguments: { text: 'key' } }), { content: [{ text: 'alpha:key' }] })
  await transport.terminateSession()
  t.equal(transport.sessionId, undefined, 'DELETE accepted for its own caller')
})

t.test('raw: a session is its caller\'s; every method is admitted first', async (t) => {
  const init = await raw.post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'c', version: '1' } } }, as(ALICE))
  t.equal(init.status, 200)
  const sessionId = init.headers['mcp-session-id'] as string
  const ping = (key: string | undefined) => raw.post({ jsonrpc: '2.0', id: 2, method: 'ping' }, { ...sessionHeaders(sessionId), ...as(key) })
  const stream = (method: 'GET' | 'DELETE', key: string | undefined) => raw.send(method, '/mcp', { headers: { accept: 'text/event-stream', ...sessionHeaders(sessionId), ...as(key) } })
  const cases: Array<[string, () => Promise<{ status: number; headers: Record<string, unknown>; json: any }>, number]> = [
    ['POST without a token → 401', () => ping(undefined), 401],
    ['POST with another caller\'s key → 404 (not its session)', () => ping(BOB), 404],
    ['GET without a token → 401', () => stream('GET', undefined), 401],
    ['GET with another caller\'s key → 404', () => stream('GET', BOB), 404],
    ['DELETE without a token → 401', () => stream('DELETE', undefined), 401],
    ['DELETE with another caller\'s key → 404', () => stream('DELETE', BOB), 404],
    ['POST with its own key → 200', () => ping(ALICE), 200],
  ]
  for (const [name, send, status] of cases) {
    const reply = await send()
    t.equal(reply.status, status, name)
    if (status === 401) t.match(reply.headers['www-authenticate'], /^Bearer /, `${name}: with the challenge`)
    if (status >= 400) t.match(reply.json, { jsonrpc: '2.0', error: { code: -32600 } }, `${name}: a JSON-RPC body`)
  }
  t.equal((await stream('DELETE', ALICE)).status, 204, 'DELETE with its own key → 204')
  t.equal((await ping(ALICE)).status, 404, 'then 404')
})
