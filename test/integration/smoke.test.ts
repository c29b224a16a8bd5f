// The gateway starts with no backends and answers server/discover over a real socket.
import t from 'tap'
import { request } from 'undici'
import { startGateway } from '../helpers/start-gateway.ts'

t.test('server/discover with no backends → 200, modern result stamped', async (t) => {
  const gw = await startGateway(t, { backends: [] })
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
  const res = await request(gw.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } }),
  })
  t.equal(res.statusCode, 200)
  const body = (await res.body.json()) as { id: number; result: Record<string, unknown> }
  t.equal(body.id, 1)
  t.same(body.result.supportedVersions, ['2026-07-28'])
  t.equal(body.result.resultType, 'complete')
  t.equal(body.result.cacheScope, 'public')
  t.type(body.result.ttlMs, 'number')
})
