// A backend that answers subscriptions/listen with JSON 200 (no SSE stream): the gateway stops
// re-opening it in a loop, refreshes the backend's lists on a timer and synthesizes list_changed
// when a list's digest changes (SUB-6, CACHE-8); its resource subscriptions are left out of the
// acknowledgment (SUB-3). On real sockets: a local node:http backend, listPollMs 30.
import { EventEmitter, once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { startGateway } from '../helpers/start-gateway.ts'
import { createRawClient } from '../helpers/mcp-client.ts'

const CAPABILITIES = { tools: { listChanged: true }, resources: { subscribe: true } }
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId'

interface JsonStub {
  url: string
  tools: string[]
  // Emits each request's method once it has been answered.
  seen: EventEmitter
  count: Map<string, number>
}

function result(method: string, tools: string[]): object {
  switch (method) {
    case 'server/discover': return { supportedVersions: ['2026-07-28'], capabilities: CAPABILITIES }
    case 'tools/list': return { tools: tools.map((name) => ({ name, inputSchema: { type: 'object' } })) }
    case 'resources/list': return { resources: [{ uri: 'stub://doc', name: 'doc' }] }
    case 'resources/templates/list': return { resourceTemplates: [] }
    default: return {} // subscriptions/listen included: a plain JSON answer, no stream
  }
}

async function startJsonStub(t: Test): Promise<JsonStub> {
  const stub: JsonStub = { url: '', tools: ['one'], seen: new EventEmitter(), count: new Map() }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = ''
    req.setEncoding('utf8').on('data', (chunk: string) => { text += chunk })
    req.on('end', () => {
      const { id, method } = JSON.parse(text) as { id?: unknown; method: string }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: result(method, stub.tools) }))
      stub.count.set(method, (stub.count.get(method) ?? 0) + 1)
      stub.seen.emit(method, stub.count.get(method))
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => {
    server.closeAllConnections()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
  return stub
}

// Resolves when the stub has answered `method` for the n-th time.
function nth(stub: JsonStub, method: string, n: number): Promise<void> {
  return new Promise((resolve) => {
    if ((stub.count.get(method) ?? 0) >= n) return resolve()
    const onSeen = (count: number): void => {
      if (count < n) return
      stub.seen.off(method, onSeen)
      resolve()
    }
    stub.seen.on(method, onSeen)
  })
}

const stub = await startJsonStub(t)
const listened = nth(stub, 'subscriptions/listen', 1)
const gateway = await startGateway(t, { listPollMs: 30, backends: [{ name: 's', transport: 'http', url: stub.url }] }, { logs: true })
const raw = createRawClient(t, gateway.url)
await listened
await gateway.logs!.waitFor((record) => record.msg === 'upstream listen unavailable; refreshing its lists on a timer')

t.test('listen answered JSON 200 → ack keeps toolsListChanged (refreshed), drops the URI; a changed list → list_changed', async (t) => {
  const controller = new AbortController()
  t.teardown(() => controller.abort())
  const stream = await raw.stream('subscriptions/listen', { notifications: { toolsListChanged: true, resourceSubscriptions: ['stub://doc'] } }, { id: 7, signal: controller.signal })
  t.equal(stream.status, 200)
  const ack = (await stream.events.next()).value!.message
  t.equal(ack.method, 'notifications/subscriptions/acknowledged')
  t.same(ack.params.notifications, { toolsListChanged: true }, 'the URI cannot be delivered → left out (SUB-3)')
  stub.tools.push('two')
  const changed = (await stream.events.next()).value!.message
  t.equal(changed.method, 'notifications/tools/list_changed')
  t.equal(changed.params._meta[SUBSCRIPTION_ID], 7)
  const listed = await raw.rpc('tools/list', {})
  t.same(listed.json.result.tools.map((tool: { name: string }) => tool.name), ['one', 'two'], 'the catalog was invalidated')
})

t.test('many refreshes later → the listen was not re-opened in a loop', async (t) => {
  await nth(stub, 'tools/list', (stub.count.get('tools/list') ?? 0) + 20)
  t.equal(stub.count.get('subscriptions/listen'), 1, 'one listen request (the next at the longest backoff)')
})
