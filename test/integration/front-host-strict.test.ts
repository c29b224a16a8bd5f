// Host and header quirks (issue 11 item 10), on real sockets: a malformed Host, two Host headers
// and an absolute-form target naming a foreign host are refused with a JSON-RPC error before
// anything else; an undeclared credential-looking Mcp-Param-* header never reaches the backend.
// Before: `Host: localhost:80@evil.example` and `[::1]evil.example` were served, the first of two
// Host headers won, a foreign absolute-form authority was served, Mcp-Param-Authorization was
// forwarded verbatim.
import t from 'tap'
import { startFixture } from '../helpers/backend-process.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { buildRpc, createRawClient } from '../helpers/mcp-client.ts'
import { rawRequest } from '../helpers/raw-http.ts'

const HOSTILE = new URL('../fixtures/hostile-backend.ts', import.meta.url).pathname
const backend = await startFixture(t, HOSTILE)
const gateway = await startGateway(t, { backends: [{ name: 'h', transport: 'http', url: backend.url, namespace: 'h' }] })
const port = Number(new URL(gateway.origin).port)

// A complete, valid tools/call request with the given request line target and Host lines.
function request(target: string, hostLines: string[]): string {
  const { body, headers } = buildRpc('tools/call', { name: 'h__echo', arguments: { text: 'x' } })
  const text = JSON.stringify(body)
  const lines = [`POST ${target} HTTP/1.1`, ...hostLines, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), `content-length: ${Buffer.byteLength(text)}`, 'connection: close']
  return `${lines.join('\r\n')}\r\n\r\n${text}`
}

const cases: Array<{ name: string; target: string; hosts: string[]; status: number }> = [
  { name: 'userinfo smuggled into Host', target: '/mcp', hosts: ['Host: localhost:80@evil.example'], status: 400 },
  { name: 'junk after an IP literal', target: '/mcp', hosts: ['Host: [::1]evil.example'], status: 400 },
  { name: 'two Host headers, allowed one first', target: '/mcp', hosts: ['Host: 127.0.0.1', 'Host: evil.example'], status: 400 },
  { name: 'absolute-form target with a foreign authority (it wins over Host)', target: 'http://evil.example/mcp', hosts: ['Host: 127.0.0.1'], status: 403 },
  { name: 'absolute-form target with userinfo', target: `http://a@127.0.0.1:${port}/mcp`, hosts: ['Host: 127.0.0.1'], status: 400 },
]

for (const c of cases) {
  t.test(`${c.name} → ${c.status} with a JSON-RPC error`, async (t) => {
    const response = await rawRequest(t, port, request(c.target, c.hosts))
    t.equal(response?.status, c.status, response?.text.slice(0, 200) ?? 'no response')
    t.match(response?.json, { jsonrpc: '2.0', error: { code: -32600 } })
  })
}

t.test('absolute-form target naming the gateway itself → served', async (t) => {
  const response = await rawRequest(t, port, request(`http://127.0.0.1:${port}/mcp`, ['Host: evil.example']))
  t.equal(response?.status, 200, response?.text.slice(0, 200) ?? 'no response')
  t.match(response?.json, { result: { content: [{ text: 'echo:x' }] } })
})

t.test('an undeclared Mcp-Param-Authorization (and other credential-looking ones) never reach the backend', async (t) => {
  const client = createRawClient(t, gateway.url)
  const headers = {
    'mcp-param-authorization': 'Bearer stolen', 'mcp-param-cookie': 'sid=1', 'mcp-param-proxy-authorization': 'Basic eA==',
    'mcp-param-api-key': 'k', 'mcp-param-trace': 't-1',
  }
  const reply = await client.rpc('tools/call', { name: 'h__echo', arguments: { text: 'p' } }, { headers })
  t.match(reply.json, { result: { content: [{ text: 'echo:p' }] } })
  const call = await backend.waitForEvent('call', (e) => e.tool === 'echo' && Array.isArray(e.paramHeaders) && (e.paramHeaders as string[]).includes('mcp-param-trace'))
  t.same(call.paramHeaders, ['mcp-param-trace'], 'only the harmless unknown header is forwarded (HDR-9)')
})
