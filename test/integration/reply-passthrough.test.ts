// A backend's result goes on to the client as the backend wrote it (issue 8): read without
// JSON.parse and stamped by splicing (protocol/result-scan.ts, result-splice.ts), only the members
// the gateway owns written anew (RPC-6, META-5). Re-serialising would turn `1e3` into `1000` and
// `caf\u00e9` into `café`, and drop the backend's spacing.
import t from 'tap'
import { startFixture } from '../helpers/backend-process.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { createRawClient } from '../helpers/mcp-client.ts'

const HOSTILE = new URL('../fixtures/hostile-backend.ts', import.meta.url).pathname
// The result's members as hostile-backend.ts writes them for the `raw` tool.
const BACKEND_BYTES = '"content" : [ { "type":"text", "text":"caf\\u00e9" } ], "n":1e3'

const backend = await startFixture(t, HOSTILE)
const gateway = await startGateway(t, { backends: [{ name: 'h', transport: 'http', url: backend.url, namespace: 'h' }] })

t.test('tools/call: the backend\'s bytes passed on, the gateway\'s members stamped', async (t) => {
  const client = createRawClient(t, gateway.url)
  const reply = await client.rpc('tools/call', { name: 'h__raw', arguments: {} }, { id: 'client "7"' })
  t.equal(reply.status, 200)
  t.ok(reply.text.includes(BACKEND_BYTES), `the backend's members byte for byte: ${reply.text}`)
  t.match(reply.json, {
    jsonrpc: '2.0',
    result: { content: [{ type: 'text', text: 'café' }], n: 1000, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: String } } },
  })
  t.equal(reply.json.id, 'client "7"', 'under the client\'s own id (RPC-4)')
})
