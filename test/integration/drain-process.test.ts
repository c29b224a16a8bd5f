// SIGTERM on the real process, in phases (README "Operations"): /readyz 503 at once while requests
// are still served for drainDelayMs; then no new connections, in-flight requests finish; at the
// shutdownTimeoutMs deadline each open request gets a JSON-RPC error (an SSE event on an open
// stream) and its access line, legacy backend sessions are DELETEd, and one final line says what
// was cut.
import t, { type Test } from 'tap'
import type { ServerResponse } from 'node:http'
import { fileURLToPath } from 'node:url'
import { startFixture } from '../helpers/backend-process.ts'
import { createRawClient } from '../helpers/mcp-client.ts'
import { startGatewayProcess, writeConfig } from '../helpers/gateway-process.ts'
import { startStub } from '../helpers/stub-http.ts'

const SDK_BACKEND = fileURLToPath(new URL('../fixtures/sdk-http-backend.ts', import.meta.url))
const alpha = await startFixture(t, SDK_BACKEND, ['--name', 'alpha'])

function parsed(lines: readonly string[]): Array<Record<string, any>> {
  return lines.flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, any>]
    } catch {
      return []
    }
  })
}

t.test('SIGTERM → /readyz 503 at once while MCP requests are still served; then exit 0', async (t) => {
  const config = { drainDelayMs: 3_000, backends: [{ name: 'a', transport: 'http', url: alpha.url, namespace: '' }] }
  const gw = await startGatewayProcess(t, writeConfig(config))
  await gw.waitForLine(/"backend up"/)
  const raw = createRawClient(t, gw.url)
  t.equal((await raw.send('GET', '/readyz')).status, 200, 'ready before')
  gw.child.kill('SIGTERM')
  await gw.waitForLine(/readyz answers 503/)
  const ready = await raw.send('GET', '/readyz')
  t.equal(ready.status, 503)
  t.equal(ready.json.status, 'draining')
  const call = await raw.rpc('tools/call', { name: 'echo', arguments: { text: 'still' } })
  t.match(call.json.result, { content: [{ text: 'alpha:still' }] }, 'still served while draining')
  await gw.waitForLine(/no longer accepting connections/)
  t.equal(await gw.exited, 0, gw.lines.join('\n'))
  const final = parsed(gw.lines).at(-1)
  t.match(final, { msg: 'shutdown complete: every request finished', cut: 0 })
})

interface LegacyPeer {
  url: string
  deleted: Promise<string | undefined>
  // A tools/call reached it (the call is in flight).
  called: Promise<void>
}

// A 2025-11-25 backend (a loopback stub): sessions, one tool `slow` whose SSE reply never ends, DELETE seen.
async function startLegacyPeer(t: Test): Promise<LegacyPeer> {
  let onDelete: (session: string | undefined) => void = () => {}
  let onCall: () => void = () => {}
  const deleted = new Promise<string | undefined>((resolve) => (onDelete = resolve))
  const called = new Promise<void>((resolve) => (onCall = resolve))
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void =>
    void res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body))
  const stub = await startStub(t, (req, res, text) => {
    if (req.method === 'DELETE') return void (onDelete(req.headers['mcp-session-id'] as string | undefined), res.writeHead(200).end())
    if (req.method !== 'POST') return void res.writeHead(405).end()
    const body = JSON.parse(text)
    if (body.method === 'server/discover') return json(res, 400, { jsonrpc: '2.0', id: body.id, error: { code: -32000, message: 'Bad Request: Server not initialized' } })
    if (body.method === 'initialize') {
      const result = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'old', version: '1' } }
      return json(res, 200, { jsonrpc: '2.0', id: body.id, result }, { 'mcp-session-id': 'legacy-session-1' })
    }
    if (!('id' in body)) return void res.writeHead(202).end()
    if (body.method === 'tools/list') return json(res, 200, { jsonrpc: '2.0', id: body.id, result: { tools: [{ name: 'slow', inputSchema: { type: 'object' } }] } })
    res.writeHead(200, { 'content-type': 'text/event-stream' }).write('id: p0\ndata: \n\n')
    onCall()
  })
  return { url: `${stub.origin}/mcp`, deleted, called }
}

t.test('requests still open at the shutdown deadline → an error event each, access lines, DELETE, one final line', async (t) => {
  const old = await startLegacyPeer(t)
  const config = {
    drainDelayMs: 0, shutdownTimeoutMs: 300,
    backends: [{ name: 'a', transport: 'http', url: alpha.url, namespace: 'a' }, { name: 'old', transport: 'http', url: old.url, namespace: 'old' }],
  }
  const gw = await startGatewayProcess(t, writeConfig(config))
  await gw.waitForLine(/"backend up".*"old"|"old".*"backend up"/)
  const raw = createRawClient(t, gw.url)
  const stream = await raw.stream('tools/call', { name: 'a__progress', arguments: { steps: 1000, delayMs: 200 } }, { id: 'streamed', meta: { progressToken: 'p' } })
  const events = stream.events[Symbol.asyncIterator]()
  t.equal((await events.next()).value?.message.method, 'notifications/progress', 'the stream is open')
  const pending = raw.rpc('tools/call', { name: 'old__slow', arguments: {} }, { id: 'plain' })
  await old.called
  gw.child.kill('SIGTERM')
  const rest: any[] = []
  for (let next = await events.next(); !next.done; next = await events.next()) rest.push(next.value.message)
  const last = rest.at(-1)
  t.match(last, { jsonrpc: '2.0', id: 'streamed', error: { code: -32603, message: /shutting down/ } }, 'the open stream ends with an error event')
  const plain = await pending
  t.equal(plain.status, 200)
  t.match(plain.json, { id: 'plain', error: { code: -32603, message: /shutting down/ } }, 'a call not streaming yet gets a JSON error')
  t.equal(await old.deleted, 'legacy-session-1', 'the legacy backend session is DELETEd')
  t.equal(await gw.exited, 1)
  const records = parsed(gw.lines)
  for (const id of ['streamed', 'plain']) {
    t.match(records.find((r) => r.msg === 'mcp request' && r.rpcId === id), { code: 'MCP_GATEWAY_SERVER_SHUTTING_DOWN', rpcMethod: 'tools/call' }, `access line for ${id}`)
  }
  const final = records.at(-1)
  t.match(final, { msg: /^shutdown complete: 2 request\(s\) cut/, cut: 2 })
  t.same(final!.requests.map((r: { rpcMethod: string }) => r.rpcMethod), ['tools/call', 'tools/call'])
})
