// x-mcp-header annotations through the gateway (HDR-7, HDR-10, HDR-11), on real sockets: a node:http
// backend lists one well-annotated tool and tools whose annotations are invalid or sit where only
// `properties` chains may reach. The invalid ones are dropped from tools/list with a warning naming
// tool and reason, and are not callable; the valid one keeps its header check and the backend gets the rebuilt header.
// Before: annotations under items, oneOf or $defs were ignored and those tools were listed.
import t from 'tap'
import { createRawClient } from '../helpers/mcp-client.ts'
import { startRecordingBackend } from '../helpers/recording-backend.ts'
import { startGateway } from '../helpers/start-gateway.ts'

const annotated = (header: string): Record<string, unknown> => ({ type: 'string', 'x-mcp-header': header })
const withProperties = (name: string, properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> =>
  ({ name, inputSchema: { type: 'object', properties, ...extra } })

const TOOLS = [
  withProperties('good', { region: annotated('Region') }),
  withProperties('under-items', { regions: { type: 'array', items: annotated('Region') } }),
  withProperties('under-one-of', { region: { oneOf: [annotated('Region')] } }),
  withProperties('under-defs', { region: { $ref: '#/$defs/r' } }, { $defs: { r: annotated('Region') } }),
  withProperties('on-a-number', { ratio: { type: 'number', 'x-mcp-header': 'Ratio' } }),
]
const DROPPED = ['under-items', 'under-one-of', 'under-defs', 'on-a-number']

const backend = await startRecordingBackend(t, TOOLS)
const gateway = await startGateway(t, { backends: [{ name: 'h', transport: 'http', url: backend.url, namespace: 'h' }] }, { logs: true })
const raw = createRawClient(t, gateway.url)

t.test('tools/list: invalid annotations drop the tool, the others stay (HDR-11)', async (t) => {
  const reply = await raw.rpc('tools/list', {})
  t.equal(reply.status, 200)
  // The warnings are waited for only once the list is right: a listed tool was never warned about.
  if (!t.same(reply.json.result.tools.map((tool: { name: string }) => tool.name), ['h__good'])) return
  for (const name of DROPPED) {
    const warning = await gateway.logs!.waitFor((r) => r.msg === 'tool dropped from tools/list' && r.tool === name)
    t.equal(warning.backend, 'h', `${name}: the warning names the backend`)
    t.type(warning.reason, 'string', `${name}: and the reason`)
  }
  const unreachable = gateway.logs!.seen().find((r) => r.tool === 'under-items')
  t.equal(unreachable?.reason, 'x-mcp-header not reachable through properties alone')
})

t.test('a dropped tool is not callable either: unknown tool, nothing reaches the backend', async (t) => {
  for (const name of DROPPED) {
    const reply = await raw.rpc('tools/call', { name: `h__${name}`, arguments: {} }, { id: name })
    t.equal(reply.json.error?.code, -32602, `${name} → -32602`)
    t.match(reply.json.error?.message, /Unknown tool/)
  }
})

t.test('the kept tool: its header is checked and rebuilt for the backend (HDR-7, HDR-10)', async (t) => {
  const params = { name: 'h__good', arguments: { region: 'eu' } }
  const missing = await raw.rpc('tools/call', params, { id: 'missing' })
  t.equal(missing.status, 400)
  t.equal(missing.json.error.code, -32020, 'no Mcp-Param-Region header → refused')
  const ok = await raw.rpc('tools/call', params, { id: 'ok', headers: { 'mcp-param-region': 'eu' } })
  t.equal(ok.status, 200)
  t.equal(ok.json.result.content[0].text, 'ok')
  const calls = backend.requests.filter((r) => r.method === 'tools/call')
  t.equal(calls.length, 1, 'the refused call never reached the backend')
  t.equal(calls[0]!.headers['mcp-param-region'], 'eu')
})

// HDR-12: the backend annotates an argument after the gateway listed the tool (no list_changed),
// and refuses calls without the header. The gateway refetches the list and sends the call again
// with the header the new definition calls for; a refusal the new list does not explain is passed on.
t.test('a backend refusing the headers (-32020) after a schema change → list refetched, call sent again (HDR-12)', async (t) => {
  const tools: Array<Record<string, unknown>> = [
    withProperties('weather', { region: { type: 'string' } }),
    { ...withProperties('broken', { region: { type: 'string' } }), refuseCalls: true },
  ]
  const changing = await startRecordingBackend(t, tools)
  const gw = await startGateway(t, { backends: [{ name: 'c', transport: 'http', url: changing.url, namespace: 'c' }], limits: { listRefreshMs: 0 } })
  const client = createRawClient(t, gw.url)
  const params = { name: 'c__weather', arguments: { region: 'eu' } }
  const sent = (tool: string) => changing.requests.filter((r) => r.method === 'tools/call' && r.headers['mcp-name'] === tool)
  const listFetches = () => changing.requests.filter((r) => r.method === 'tools/list').length

  t.equal((await client.rpc('tools/call', params, { id: 'before' })).json.result?.content[0].text, 'ok', 'before the change: served')
  tools[0] = withProperties('weather', { region: annotated('Region') })
  const fetchesBefore = listFetches()
  const after = await client.rpc('tools/call', params, { id: 'after' })
  t.equal(after.status, 200)
  t.equal(after.json.result?.content[0].text, 'ok', 'after the change: served, once sent again')
  t.equal(listFetches(), fetchesBefore + 1, 'the tools list was fetched again once')
  t.same(sent('weather').map((r) => r.headers['mcp-param-region']), [undefined, undefined, 'eu'], 'refused without the header, then sent with it')
  const next = await client.rpc('tools/call', params, { id: 'next', headers: { 'mcp-param-region': 'eu' } })
  t.equal(next.json.result?.content[0].text, 'ok')
  t.equal(sent('weather').length, 4, 'the next call goes out with the header at once')

  const refused = await client.rpc('tools/call', { name: 'c__broken', arguments: { region: 'eu' } }, { id: 'broken' })
  t.equal(refused.status, 400)
  t.equal(refused.json.error?.code, -32020, 'a refusal the current list does not explain → passed on')
  t.equal(sent('broken').length, 1, 'and not sent again')
})
