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

t.test('no backend offers prompts/resources/completions → those methods are 404 -32601 (ERR-8); tools/list is 200', async (t) => {
  const gw = await startGateway(t, { backends: [] })
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
  const post = async (method: string, params: Record<string, unknown> = {}): Promise<{ status: number; body: any }> => {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method }
    if (method === 'prompts/get') headers['mcp-name'] = String(params.name)
    const res = await request(gw.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: method, method, params: { ...params, _meta: meta } }) })
    return { status: res.statusCode, body: await res.body.json() }
  }
  for (const [method, params] of [['prompts/list', {}], ['prompts/get', { name: 'x' }], ['resources/list', {}], ['completion/complete', {}]] as const) {
    const reply = await post(method, params)
    t.equal(reply.status, 404, `${method} → 404`)
    t.match(reply.body, { id: method, error: { code: -32601 } })
  }
  const tools = await post('tools/list')
  t.equal(tools.status, 200)
  t.same(tools.body.result.tools, [])
})
