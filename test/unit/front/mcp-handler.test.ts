// A bug in routing must not leave the client hanging. The fault is injected (a router that throws
// a TypeError): a real backend cannot produce it, since every failure it can cause is typed.
import t from 'tap'
import type { Test } from 'tap'
import { once } from 'node:events'
import { createServer } from 'node:http'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { request } from 'undici'
import { Registry } from 'prom-client'
import { handleMcpPost } from '../../../src/front/mcp-handler.ts'
import { createMetrics } from '../../../src/observability/metrics.ts'
import type { Router } from '../../../src/routing/router.ts'

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }


// The handler behind a real node:http server on port 0 (the body read as Fastify would hand it
// over), its log lines collected.
async function serveHandler(t: Test, router: Router, reqId: string): Promise<{ port: number; lines: string[] }> {
  const lines: string[] = []
  const log = pino({ level: 'info' }, new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done() } }))
  const deps = { router, metrics: createMetrics(new Registry()) }
  const server = createServer((req, res) => {
    let text = ''
    req.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => {
      void handleMcpPost(deps, { headers: req.headers, body: JSON.parse(text), res, log, reqId })
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { port: (server.address() as { port: number }).port, lines }
}

t.test('router throws an unexpected error → 500 with -32603 and the id, logged once at error', async (t) => {
  const router = { handle: async () => { throw new TypeError('a bug') } } as unknown as Router
  const { port, lines } = await serveHandler(t, router, 'r1')
  const res = await request(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'x1', method: 'tools/list', params: { _meta: META } }),
  })
  t.equal(res.statusCode, 500)
  t.match(await res.body.json(), { jsonrpc: '2.0', id: 'x1', error: { code: -32603 } })
  const errors = lines.filter((l) => l.includes('"level":50'))
  t.equal(errors.length, 1, 'logged once')
  t.match(errors[0], /a bug/)
})

// HTTP-16 (statusFor): once a notification has opened the SSE stream, the failure can only go in
// band: the final event carries -32603, and the access line says 200, as the wire does.
t.test('router throws after the SSE stream started → -32603 as the last event, access line status 200', async (t) => {
  const router = {
    handle: async (_valid: unknown, ctx: { onNotification: (n: object) => void }) => {
      ctx.onNotification({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 1 } })
      await new Promise((resolve) => setImmediate(resolve))
      throw new TypeError('a late bug')
    },
  } as unknown as Router
  const { port, lines } = await serveHandler(t, router, 'r2')
  const res = await request(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'x2', method: 'tools/list', params: { _meta: { ...META, progressToken: 'p1' } } }),
  })
  t.equal(res.statusCode, 200, 'the stream had started')
  t.match(res.headers['content-type'], /^text\/event-stream/)
  const events = (await res.body.text()).split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)))
  t.match(events[0], { method: 'notifications/progress' })
  t.match(events.at(-1), { jsonrpc: '2.0', id: 'x2', error: { code: -32603 } }, 'the failure in band')
  const access = lines.map((l) => JSON.parse(l)).filter((r) => r.msg === 'mcp request')
  t.equal(access.length, 1, 'one access line')
  t.match(access[0], { reqId: 'r2', status: 200, outcome: 'error', code: 'MCP_GATEWAY_INTERNAL' })
})
