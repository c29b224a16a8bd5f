// When the list that decides who owns a name or URI cannot be fetched, the call fails with that
// backend's upstream failure (-32603 naming it, ERR-7), never "Unknown tool" (-32602, ERR-9); -32602
// only when every candidate's list was read. On real sockets: a local node:http backend that probes
// fine but never answers its lists within timeoutMs ("stuck"), one that answers its lists with a
// JSON-RPC error ("refusing"), and a real SDK backend as a child process ("live").
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { startFixture } from '../helpers/backend-process.ts'
import { startGateway, type LogRecord, type StartedGateway } from '../helpers/start-gateway.ts'
import { createRawClient, type RawMcpClient } from '../helpers/mcp-client.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname
const ORIGIN_KEY = 'io.github.mcp-gateway/origin'
const TIMEOUT_MS = 300
// Generous ceiling for "never a hang" on a loaded 2-core machine; far below any default timeout.
const BOUNDED_MS = 5_000
const LIST_METHODS = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'])
const CAPABILITIES = { tools: {}, prompts: {}, resources: {} }

interface StubBackend {
  url: string
  // The mcp-method header of every request received, in order.
  methods: string[]
}

function answer(res: ServerResponse, body: object): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

// A 2026-07-28 backend that answers server/discover; its lists hang (never answered) or are refused.
async function startStubBackend(t: Test, lists: 'hang' | 'refuse'): Promise<StubBackend> {
  const methods: string[] = []
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    methods.push(String(req.headers['mcp-method']))
    let text = ''
    req.setEncoding('utf8').on('data', (chunk: string) => { text += chunk })
    req.on('end', () => {
      let message: { id?: string; method?: string } = {}
      try {
        message = JSON.parse(text)
      } catch {
        return res.writeHead(400).end()
      }
      const { id, method = '' } = message
      if (method === 'server/discover') return answer(res, { jsonrpc: '2.0', id, result: { supportedVersions: ['2026-07-28'], capabilities: CAPABILITIES } })
      if (LIST_METHODS.has(method) && lists === 'hang') return // held until the gateway gives up
      answer(res, { jsonrpc: '2.0', id, error: { code: -32603, message: `${method} is broken here` } })
    })
  })
  server.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, methods }
}

const upstreamFailure = (backend: string, reason: string): object => ({ code: -32603, data: { [ORIGIN_KEY]: 'gateway', backend, reason } })

// Warnings and errors the gateway logged about one backend so far.
function problemsAbout(gateway: StartedGateway, backend: string): LogRecord[] {
  return gateway.logs!.seen().filter((r) => (r.level as number) >= 40 && r.backend === backend)
}

async function timed(call: () => Promise<any>): Promise<{ reply: any; ms: number }> {
  const started = performance.now()
  const reply = await call()
  return { reply, ms: performance.now() - started }
}

const [alpha, stuck, refusing] = await Promise.all([
  startFixture(t, BACKEND, ['--name', 'alpha', '--extras']),
  startStubBackend(t, 'hang'),
  startStubBackend(t, 'refuse'),
])

t.test('namespaced backends: stuck, refusing, live', async (t) => {
  const gateway = await startGateway(t, {
    backends: [
      { name: 'stuck', transport: 'http', url: stuck.url, namespace: 'stuck', timeoutMs: TIMEOUT_MS },
      { name: 'refusing', transport: 'http', url: refusing.url, namespace: 'refusing' },
      { name: 'live', transport: 'http', url: alpha.url, namespace: 'live' },
    ],
  }, { logs: true })
  const raw: RawMcpClient = createRawClient(t, gateway.url)

  t.test('tools/call stuck__x, tools/list times out → -32603 timeout naming "stuck", not -32602; logged once', async (t) => {
    const before = problemsAbout(gateway, 'stuck').length
    const { reply, ms } = await timed(() => raw.rpc('tools/call', { name: 'stuck__x', arguments: {} }, { id: 'stuck-1' }))
    t.equal(reply.status, 200)
    t.match(reply.json, { id: 'stuck-1', error: upstreamFailure('stuck', 'timeout') })
    t.match(reply.json.error.message, /^Backend timed out: stuck: /)
    t.ok(stuck.methods.includes('tools/list'), 'the stuck backend was asked for its tools')
    t.ok(ms >= TIMEOUT_MS - 20 && ms < BOUNDED_MS, `answered after its timeoutMs, within a bound (${ms.toFixed(0)}ms)`)
    const line = await gateway.logs!.waitFor((r) => r.msg === 'mcp request' && r.rpcId === 'stuck-1')
    t.match(line, { backend: 'stuck', tool: 'stuck__x', outcome: 'upstream_failure' }, 'the access line names the backend')
    t.equal(problemsAbout(gateway, 'stuck').length, before, 'no further warning for the same failure')
  })

  t.test('tools/call refusing__x, tools/list answered a JSON-RPC error → -32603 bad_reply naming "refusing"', async (t) => {
    const reply = await raw.rpc('tools/call', { name: 'refusing__x', arguments: {} }, { id: 'refused' })
    t.equal(reply.status, 200)
    t.match(reply.json, { id: 'refused', error: upstreamFailure('refusing', 'bad_reply') })
    t.match(reply.json.error.message, /tools\/list answered error -32603/)
  })

  t.test('prompts/get stuck__greet → -32603 timeout naming "stuck"', async (t) => {
    const reply = await raw.rpc('prompts/get', { name: 'stuck__greet', arguments: {} })
    t.match(reply.json, { error: upstreamFailure('stuck', 'timeout') })
  })

  t.test('resources/read of a URI nobody lists, first lists failing → -32603 naming the first failing backend', async (t) => {
    const reply = await raw.rpc('resources/read', { uri: 'nobody://x' })
    t.match(reply.json, { error: upstreamFailure('stuck', 'timeout') })
  })

  t.test('the live backend keeps working', async (t) => {
    const call = await raw.rpc('tools/call', { name: 'live__echo', arguments: { text: 'ok' } })
    t.match(call.json, { result: { content: [{ text: 'alpha:ok' }] } }, 'tools/call live__echo → answered')
    const read = await raw.rpc('resources/read', { uri: 'fixture://alpha/info' })
    t.match(read.json, { result: { contents: [{ text: 'backend alpha' }] } }, 'resources/read of its URI → answered (failing lists passed over)')
    const list = await raw.rpc('tools/list')
    const names: string[] = list.json.result.tools.map((tool: { name: string }) => tool.name)
    t.ok(names.length > 0 && names.every((name) => name.startsWith('live__')), 'tools/list → only the live backend\'s tools')
  })

  t.test('tools/call live__nope, every candidate list read → -32602 Unknown tool', async (t) => {
    const reply = await raw.rpc('tools/call', { name: 'live__nope', arguments: {} })
    t.equal(reply.status, 200)
    t.match(reply.json, { error: { code: -32602, message: 'Unknown tool: live__nope' } })
  })

  t.test('subscriptions/listen: a URI whose owner cannot be decided → left out of the ack (SUB-3), warned once', async (t) => {
    const controller = new AbortController()
    t.teardown(() => controller.abort())
    const stream = await raw.stream('subscriptions/listen', { notifications: { resourceSubscriptions: ['fixture://alpha/info', 'nobody://x'] } }, {
      id: 'listen-1', signal: controller.signal,
    })
    const { value: ack } = await stream.events.next()
    t.equal(ack.message.method, 'notifications/subscriptions/acknowledged')
    t.same(ack.message.params.notifications.resourceSubscriptions, ['fixture://alpha/info'], 'the live backend\'s URI kept, the undecidable one left out')
    // Logged while the URIs were routed, so before the ack was written.
    const warnings = gateway.logs!.seen().filter((r) => r.msg === 'resource subscriptions left out: their owner could not be decided')
    t.match(warnings, [{ level: 40, backend: 'stuck', reason: 'timeout', uris: ['nobody://x'] }], 'one warning, naming the backend and reason')
    t.equal(warnings.length, 1, 'only one')
  })
})

t.test('empty namespace on the stuck backend: it is a candidate for every name', async (t) => {
  const gateway = await startGateway(t, {
    backends: [
      { name: 'stuck', transport: 'http', url: stuck.url, namespace: '', timeoutMs: TIMEOUT_MS },
      { name: 'live', transport: 'http', url: alpha.url, namespace: 'live' },
    ],
  })
  const raw = createRawClient(t, gateway.url)
  const unknown = await raw.rpc('tools/call', { name: 'anything', arguments: {} })
  t.match(unknown.json, { error: upstreamFailure('stuck', 'timeout') }, 'a name only the stuck backend could own → -32603 naming it')
  const echo = await raw.rpc('tools/call', { name: 'live__echo', arguments: { text: 'still' } })
  t.match(echo.json, { result: { content: [{ text: 'alpha:still' }] } }, 'a name the live backend owns → answered by it')
})
