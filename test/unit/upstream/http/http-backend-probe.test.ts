// Sequencing of the HTTP era probe on a real local server (ERA-1, ERA-4, LEGACY-C1): what the
// backend is sent after each kind of server/discover answer, and the status it ends in. The
// verdicts themselves are tested in test/unit/protocol/era.test.ts.
import { once } from 'node:events'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import type { HttpBackendConfig } from '../../../../src/config/types.ts'
import type { Logger } from '../../../../src/observability/logger.ts'
import type { JsonObject } from '../../../../src/protocol/jsonrpc.ts'
import { createHttpBackend } from '../../../../src/upstream/http/http-backend.ts'

type Answer = { status: number; body?: JsonObject }

const DISCOVER_RESULT = { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, ttlMs: 0, cacheScope: 'private' }
const rpcError = (code: number, data?: unknown): JsonObject => ({ error: { code, message: 'x', data } })

function send(res: ServerResponse, id: unknown, answer: Answer): void {
  if (answer.body === undefined) return void res.writeHead(answer.status).end()
  res.writeHead(answer.status, { 'content-type': 'application/json', 'mcp-session-id': 's1' }).end(JSON.stringify({ jsonrpc: '2.0', id, ...answer.body }))
}

// A backend answering server/discover and initialize as scripted; records every method it is sent.
async function startPeer(t: Tap, script: { discover: Answer; initialize?: Answer }) {
  const methods: string[] = []
  const server = createServer(async (req, res) => {
    let text = ''
    for await (const chunk of req) text += chunk
    const message = text === '' ? {} : JSON.parse(text)
    methods.push(req.method === 'POST' ? message.method : req.method)
    if (message.method === 'server/discover') return send(res, message.id, script.discover)
    if (message.method === 'initialize' && script.initialize) return send(res, message.id, script.initialize)
    res.writeHead(202).end()
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, methods }
}

interface Tap {
  teardown(fn: () => unknown): void
}

const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent } as unknown as Logger
const LEGACY_INIT: Answer = { status: 200, body: { result: { protocolVersion: '2025-11-25', capabilities: { prompts: {} }, serverInfo: { name: 'peer', version: '1' } } } }

const cases: Array<{ name: string; discover: Answer; initialize?: Answer; status: JsonObject; capabilities?: JsonObject; sent: string[] }> = [
  { name: '200 DiscoverResult → modern, up, nothing more sent', discover: { status: 200, body: { result: DISCOVER_RESULT } },
    status: { era: 'modern', up: true, protocolVersion: '2026-07-28' }, capabilities: { tools: {} }, sent: ['server/discover'] },
  { name: '400 -32022 naming 2026-07-28 → modern, up, no initialize (VER-6)', discover: { status: 400, body: rpcError(-32022, { supported: ['2026-07-28'], requested: '2026-07-28' }) },
    status: { era: 'modern', up: true, protocolVersion: '2026-07-28' }, capabilities: {}, sent: ['server/discover'] },
  { name: '400 -32022 without a common version → modern, down, no initialize', discover: { status: 400, body: rpcError(-32022, { supported: ['2027-01-01'] }) },
    status: { era: 'modern', up: false, reason: /no protocol version in common/ }, sent: ['server/discover'] },
  { name: '400 -32021 → modern, down, no initialize (ERA-1)', discover: { status: 400, body: rpcError(-32021) },
    status: { era: 'modern', up: false, reason: /refused by a modern backend/ }, sent: ['server/discover'] },
  { name: '404 empty body → initialize, initialized, legacy up', discover: { status: 404 }, initialize: LEGACY_INIT,
    status: { era: 'legacy', up: true, protocolVersion: '2025-11-25' }, capabilities: { prompts: {} }, sent: ['server/discover', 'initialize', 'notifications/initialized'] },
  { name: '400 -32000 → initialize; an unsupported version → legacy, down (LEGACY-C1)', discover: { status: 400, body: rpcError(-32000) },
    initialize: { status: 200, body: { result: { protocolVersion: '2024-11-05', capabilities: {} } } },
    status: { era: 'legacy', up: false, reason: /unsupported protocol version "2024-11-05"/ }, sent: ['server/discover', 'initialize'] },
  { name: '401 empty body → down, era unknown, no initialize', discover: { status: 401 },
    status: { era: 'unknown', up: false, reason: 'server/discover answered HTTP 401 without a usable reply' }, sent: ['server/discover'] },
]

t.test('HttpBackend probe: what follows each server/discover answer', async (t) => {
  for (const entry of cases) {
    const peer = await startPeer(t, entry)
    const config = { name: 'peer', transport: 'http', url: peer.url, namespace: 'p', headers: {}, connections: 2, timeoutMs: 5_000, maxReplyBytes: 1_048_576 } as HttpBackendConfig
    const backend = createHttpBackend(config, { logger: silent, clientInfo: { name: 'gw', version: '0' }, probeTimeoutMs: 5_000 })
    await backend.start()
    t.match(backend.status(), { name: 'peer', transport: 'http', ...entry.status }, entry.name)
    if (entry.capabilities) t.same(backend.capabilities(), entry.capabilities, `${entry.name} (capabilities)`)
    await backend.close()
    t.same(peer.methods.filter((method) => method !== 'DELETE'), entry.sent, `${entry.name} (sent)`)
  }
})

t.test('HttpBackend probe: nothing listening → down, era unknown, naming the failure', async (t) => {
  // A port that was just free: connecting to it is refused.
  const closed = createServer()
  closed.listen(0, '127.0.0.1')
  await once(closed, 'listening')
  const freePort = (closed.address() as AddressInfo).port
  await new Promise((resolve) => closed.close(resolve))
  const config = { name: 'gone', transport: 'http', url: `http://127.0.0.1:${freePort}/mcp`, namespace: 'g', headers: {}, connections: 1, timeoutMs: 1_000, maxReplyBytes: 1_024 } as HttpBackendConfig
  const backend = createHttpBackend(config, { logger: silent, clientInfo: { name: 'gw', version: '0' } })
  await backend.start()
  t.match(backend.status(), { era: 'unknown', up: false, reason: 'cannot reach backend (ECONNREFUSED) during the era probe' })
  await backend.close()
  t.match(backend.status(), { up: false, reason: 'closed' }, 'close → closed')
})
