// Logs that explain (README "Operations"): start-up prints the MCP URL and one readable line per
// backend (a down one says what to check); the access line carries the error code, the tool /
// prompt / URI, the client address (X-Forwarded-For only with trustProxy), the user agent and a
// request id that is the caller's X-Request-Id (sanitised, bounded) or a UUID.
import t, { type Test } from 'tap'
import type { ServerResponse } from 'node:http'
import { fileURLToPath } from 'node:url'
import { startFixture } from '../helpers/backend-process.ts'
import { findFreePort } from '../helpers/ports.ts'
import { startGatewayProcess, writeConfig } from '../helpers/gateway-process.ts'
import { startGateway, type LogRecord, type StartedGateway } from '../helpers/start-gateway.ts'
import { createRawClient } from '../helpers/mcp-client.ts'
import { startStub } from '../helpers/stub-http.ts'
import { openRawSession, sessionHeaders } from '../helpers/legacy-client.ts'

const SDK_BACKEND = fileURLToPath(new URL('../fixtures/sdk-http-backend.ts', import.meta.url))
const alpha = await startFixture(t, SDK_BACKEND, ['--name', 'alpha'])

t.test('start-up → the MCP URL, then one line per backend: tools when up, what to check when down', async (t) => {
  const html = await startStub(t, (_req, res) => void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'))
  const backends = [
    { name: 'live', transport: 'http', url: alpha.url, namespace: 'live' },
    { name: 'dead', transport: 'http', url: `http://127.0.0.1:${await findFreePort()}/mcp`, namespace: 'dead' },
    { name: 'web', transport: 'http', url: `${html.origin}/`, namespace: 'web' },
    { name: 'crashy', transport: 'stdio', command: process.execPath, args: ['-e', 'process.exit(3)'], namespace: 'crashy' },
  ]
  const gw = await startGatewayProcess(t, writeConfig({ backends }))
  const origin = new URL(gw.url).origin
  t.match(await gw.waitForLine(/MCP endpoint/), `"msg":"MCP endpoint: ${origin}/mcp"`)
  t.match(await gw.waitForLine(/"backend live: /), /"msg":"backend live: http, 2026-07-28, 5 tool\(s\)"/)
  t.match(await gw.waitForLine(/"backend dead /), /is DOWN: nothing is listening at http:\/\/127\.0\.0\.1:\d+\/mcp; start that server or correct \\"url\\"/)
  t.match(await gw.waitForLine(/"backend web /), /is DOWN: http:\/\/127\.0\.0\.1:\d+\/ answered, but not as an MCP server; check the path/)
  t.match(await gw.waitForLine(/"backend crashy /), /is DOWN: .*run \\".*process\.exit\(3\)\\" by hand/)
  gw.child.kill('SIGKILL')
})

function accessLine(gateway: StartedGateway, reqId: string): Promise<LogRecord> {
  return gateway.logs!.waitFor((r) => r.msg === 'mcp request' && r.reqId === reqId)
}

async function start(t: Test, extra: Record<string, unknown> = {}): Promise<StartedGateway> {
  return startGateway(t, { ...extra, backends: [{ name: 'a', transport: 'http', url: alpha.url, namespace: 'a' }] }, { logs: true })
}

t.test('access line → error code, target by kind, client address, user agent', async (t) => {
  const gateway = await start(t)
  const raw = createRawClient(t, gateway.url)
  const agent = { 'user-agent': 'ops-test/1.0', 'x-forwarded-for': '203.0.113.9' }
  await raw.rpc('tools/call', { name: 'a__nope', arguments: {} }, { headers: { ...agent, 'x-request-id': 'unknown-tool' } })
  t.match(await accessLine(gateway, 'unknown-tool'), { tool: 'a__nope', code: 'MCP_GATEWAY_TOOL_UNKNOWN', rpcCode: -32602, outcome: 'error', userAgent: 'ops-test/1.0', remoteAddress: '127.0.0.1' }, 'X-Forwarded-For ignored without trustProxy')
  await raw.rpc('prompts/get', { name: 'a__greet', arguments: { name: 'Ada' } }, { headers: { 'x-request-id': 'prompt' } })
  const prompt = await accessLine(gateway, 'prompt')
  t.match(prompt, { prompt: 'a__greet', outcome: 'ok' })
  t.notOk('tool' in prompt, 'a prompt is not logged as a tool')
  await raw.rpc('resources/read', { uri: 'fixture://alpha/info' }, { headers: { 'x-request-id': 'resource' } })
  t.match(await accessLine(gateway, 'resource'), { uri: 'fixture://alpha/info', backend: 'a', outcome: 'ok' })
  await raw.rpc('tools/list', {}, { headers: { 'mcp-method': 'nope', 'x-request-id': 'rejected' } })
  t.match(await accessLine(gateway, 'rejected'), { code: 'MCP_GATEWAY_HEADER_MISMATCH', rpcCode: -32020, status: 400, outcome: 'rejected' })
  await raw.post('{', { 'x-request-id': 'bad-json' })
  t.match(await accessLine(gateway, 'bad-json'), { code: 'MCP_GATEWAY_RPC_PARSE_ERROR', rpcCode: -32700, remoteAddress: '127.0.0.1' }, 'refusals before the handler too')
})

t.test('trustProxy → the address from X-Forwarded-For (its last entry)', async (t) => {
  const gateway = await start(t, { trustProxy: true })
  const raw = createRawClient(t, gateway.url)
  await raw.rpc('tools/call', { name: 'a__echo', arguments: { text: 'x' } }, { headers: { 'x-forwarded-for': '198.51.100.1, 203.0.113.9', 'x-request-id': 'proxied' } })
  t.match(await accessLine(gateway, 'proxied'), { remoteAddress: '203.0.113.9', tool: 'a__echo' })
  const { sessionId } = await openRawSession(raw)
  await raw.send('DELETE', '/mcp', { headers: { ...sessionHeaders(sessionId), 'x-forwarded-for': '203.0.113.7', 'user-agent': 'legacy/2', 'x-request-id': 'legacy-delete' } })
  t.match(await accessLine(gateway, 'legacy-delete'), { httpMethod: 'DELETE', status: 204, remoteAddress: '203.0.113.7', userAgent: 'legacy/2' }, 'legacy GET/DELETE lines too')
})

t.test('request id → the caller\'s X-Request-Id (unsafe characters dropped, 128 at most), else a UUID', async (t) => {
  const gateway = await start(t)
  const raw = createRawClient(t, gateway.url)
  await raw.rpc('tools/list', {}, { id: 'dirty', headers: { 'x-request-id': 'ab c<script>"{}' } })
  t.match(await gateway.logs!.waitFor((r) => r.msg === 'mcp request' && r.rpcId === 'dirty'), { reqId: 'abcscript' })
  await raw.rpc('tools/list', {}, { id: 'long', headers: { 'x-request-id': 'x'.repeat(300) } })
  t.match(await gateway.logs!.waitFor((r) => r.msg === 'mcp request' && r.rpcId === 'long'), { reqId: 'x'.repeat(128) })
  await raw.rpc('tools/list', {}, { id: 'none' })
  await raw.rpc('tools/list', {}, { id: 'none-2' })
  const [first, second] = await Promise.all(['none', 'none-2'].map((id) => gateway.logs!.waitFor((r) => r.msg === 'mcp request' && r.rpcId === id)))
  t.match(first.reqId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  t.not(first.reqId, second.reqId)
})

// A 2025-11-25 HTTP backend asks roots/list on its GET stream, outside any call: answered at once
// with an error (as over stdio), nothing logged above debug.
t.test('an out-of-call roots/list from an HTTP backend → refused at once, quietly', async (t) => {
  let onAnswer: (body: Record<string, any>) => void = () => {}
  const answered = new Promise<Record<string, any>>((resolve) => (onAnswer = resolve))
  const json = (res: ServerResponse, body: unknown, headers: Record<string, string> = {}): void =>
    void res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body))
  const peer = await startStub(t, (req, res, text) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      return void res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: 'roots-1', method: 'roots/list' })}\n\n`)
    }
    if (req.method !== 'POST') return void res.writeHead(200).end()
    const body = JSON.parse(text)
    if (body.method === 'server/discover') return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: body.id, error: { code: -32000, message: 'Server not initialized' } }))
    if (body.method === 'initialize') {
      return json(res, { jsonrpc: '2.0', id: body.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'old', version: '1' } } }, { 'mcp-session-id': 's1' })
    }
    if (body.id === 'roots-1') onAnswer(body)
    if (!('method' in body) || !('id' in body)) return void res.writeHead(202).end()
    json(res, { jsonrpc: '2.0', id: body.id, result: { tools: [] } })
  })
  const gateway = await startGateway(t, { backends: [{ name: 'old', transport: 'http', url: `${peer.origin}/mcp`, namespace: 'old' }] }, { logs: true })
  const answer = await answered
  t.match(answer, { jsonrpc: '2.0', id: 'roots-1', error: { code: -32601 } }, 'an error answer, not a wait for its timeout')
  t.notOk(gateway.logs!.seen().some((r) => Number(r.level) >= 40 && /roots|server request|refused/.test(String(r.msg))), 'nothing logged at warn or above')
})
