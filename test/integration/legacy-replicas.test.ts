// A legacy session id is self-contained (LEGACY-4, ARCHITECTURE "The legacy era"): opened on one
// gateway process, it is served by a second process sharing the secret — no store, no affinity —
// and refused (404) by a process with another secret. Real processes: three `node src/server.ts`
// and an SDK v2 HTTP backend; clients: the v1 SDK client and raw requests.
import t from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { startFixture } from '../helpers/backend-process.ts'
import { startGatewayProcess, writeConfig } from '../helpers/gateway-process.ts'
import { createRawClient } from '../helpers/mcp-client.ts'
import { connectV1, createFetch, legacyRpc, openRawSession } from '../helpers/legacy-client.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname
const SECRET = 'replicas-share-this-secret-0123456789'
const OTHER_SECRET = 'another-deployment-secret-9876543210'

const alpha = await startFixture(t, BACKEND, ['--name', 'alpha'])
const config = writeConfig({ backends: [{ name: 'a', transport: 'http', url: alpha.url, namespace: 'a' }] })
const [first, second, foreign] = await Promise.all([
  startGatewayProcess(t, config, { MCP_GATEWAY_STATE_SECRET: SECRET }),
  startGatewayProcess(t, config, { MCP_GATEWAY_STATE_SECRET: SECRET }),
  startGatewayProcess(t, config, { MCP_GATEWAY_STATE_SECRET: OTHER_SECRET }),
])
// Each process probes its backend before serving it (its readiness line).
await Promise.all([first, second, foreign].map((gw) => gw.waitForLine(/"backend up"/)))

t.test('raw: initialize on one process → every request on the second; another secret → 404', async (t) => {
  const { sessionId } = await openRawSession(createRawClient(t, first.url))
  const other = createRawClient(t, second.url)
  t.same((await legacyRpc(other, sessionId, 'ping')).json.result, {}, 'ping on the second process')
  const listed = await legacyRpc(other, sessionId, 'tools/list', {}, 2)
  t.ok(listed.json.result.tools.some((tool: { name: string }) => tool.name === 'a__echo'), 'tools/list on the second process')
  const called = await legacyRpc(other, sessionId, 'tools/call', { name: 'a__echo', arguments: { text: 'there' } }, 3)
  t.match(called.json, { id: 3, result: { content: [{ text: 'alpha:there' }] } })
  const refused = await legacyRpc(createRawClient(t, foreign.url), sessionId, 'ping')
  t.equal(refused.status, 404, 'a process with another secret does not know it')
  t.match(refused.json, { jsonrpc: '2.0', error: { code: -32600 } })
})

t.test('v1 SDK client: session from the first process, resumed on the second', async (t) => {
  const { transport: opened } = await connectV1(t, first.url)
  const pool = createFetch()
  const resumed = new StreamableHTTPClientTransport(new URL(second.url), { sessionId: opened.sessionId, fetch: pool.fetch })
  const client = new Client({ name: 'v1-resumed', version: '1.0.0' })
  t.teardown(async () => {
    await client.close()
    await pool.destroy()
  })
  await client.connect(resumed)
  t.equal(resumed.sessionId, opened.sessionId, 'no new session: the id is reused as it is')
  const result = await client.callTool({ name: 'a__echo', arguments: { text: 'moved' } })
  t.match(result, { content: [{ type: 'text', text: 'alpha:moved' }] })
})
