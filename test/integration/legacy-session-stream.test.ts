// A legacy session's GET stream and its changing state (LEGACY-5, LEGACY-9..11, LEGACY-16): list changes
// and resources/updated for the session's subscriptions arrive on the one GET stream (a second GET
// → 409), logging/setLevel applies to every later request of the session, DELETE ends it (404
// afterwards) and closes its stream. Real peers: the v1 SDK client, raw undici requests, an SDK v2
// HTTP backend (modern, with subscriptions) and the legacy stdio fixture.
import t from 'tap'
import { Agent, request } from 'undici'
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { startTwoEraGateway } from '../helpers/two-era-gateway.ts'
import { createRawClient, readSseEvents, type SseEvent } from '../helpers/mcp-client.ts'
import { connectV1, legacyRpc, openRawSession, sessionHeaders } from '../helpers/legacy-client.ts'

const { alpha, gateway } = await startTwoEraGateway(t)
const raw = createRawClient(t, gateway.url)
const agent = new Agent()
t.teardown(() => agent.destroy())

// The hub's list-change listen on alpha is its first listener.
await alpha.waitForEvent('listen-opened', (event) => event.listeners === 1)

function streamOpened(): Promise<unknown> {
  return gateway.logs!.waitFor((record) => record.msg === 'legacy session stream opened')
}

// A raw GET stream of the session, read as it arrives.
async function openGet(sessionId: string, headers: Record<string, string> = {}) {
  const controller = new AbortController()
  const response = await request(gateway.url, {
    dispatcher: agent, method: 'GET', signal: controller.signal,
    headers: { accept: 'text/event-stream', ...sessionHeaders(sessionId), ...headers },
  })
  return { status: response.statusCode, headers: response.headers, events: readSseEvents(response.body), body: response.body, close: () => controller.abort() }
}

async function next(events: AsyncGenerator<SseEvent>): Promise<any> {
  const { value, done } = await events.next()
  if (done) throw new Error('the stream ended')
  return value.message
}

function notified<T>(client: { setNotificationHandler: (schema: any, handler: (n: any) => void) => void }, schema: unknown): Promise<T> {
  return new Promise((resolve) => client.setNotificationHandler(schema, (n: T) => resolve(n)))
}

t.test('v1: subscribe → resources/updated on the GET stream; unsubscribe → the upstream listen closes', async (t) => {
  const opened = streamOpened()
  const { client } = await connectV1(t, gateway.url)
  await opened
  const uri = 'fixture://alpha/docs'
  t.same(await client.subscribeResource({ uri }), {})
  await alpha.waitForEvent('listen-opened', (event) => event.listeners === 2)
  const updated = notified<{ params: { uri: string; _meta?: unknown } }>(client, ResourceUpdatedNotificationSchema)
  await client.callTool({ name: 'a__touch-resource', arguments: { uri } })
  const notification = await updated
  t.equal(notification.params.uri, uri)
  t.notOk(notification.params._meta, 'no subscription id (LEGACY-16)')
  t.same(await client.unsubscribeResource({ uri }), {})
  await alpha.waitForEvent('listen-closed', (event) => event.listeners === 1)
})

t.test('v1: list changes from a modern and a legacy backend → on the GET stream', async (t) => {
  const opened = streamOpened()
  const { client } = await connectV1(t, gateway.url)
  await opened
  let changed = notified(client, ToolListChangedNotificationSchema)
  await client.callTool({ name: 'a__notify-tools-changed', arguments: { tool: 'fresh' } })
  t.ok(await changed, 'modern backend → tools/list_changed')
  t.ok((await client.listTools()).tools.some((tool) => tool.name === 'a__fresh'), 'the catalog was refreshed')
  changed = notified(client, ToolListChangedNotificationSchema)
  await client.callTool({ name: 'lg__notify-changed', arguments: {} })
  t.ok(await changed, 'legacy backend → tools/list_changed')
})

t.test('v1: logging/setLevel → the session\'s calls carry it; a higher level filters', async (t) => {
  const { client } = await connectV1(t, gateway.url)
  const messages: Array<{ level: string; data: unknown }> = []
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void messages.push(n.params))
  const call = () => client.callTool({ name: 'a__progress', arguments: { steps: 1, delayMs: 0 } })
  await call()
  t.same(messages, [], 'no level set → no logs (LOG-2)')
  t.same(await client.setLoggingLevel('info'), {})
  await call()
  t.match(messages, [{ level: 'info', data: /progress finished/ }], 'info → the backend\'s info log on the POST stream')
  messages.length = 0
  await client.setLoggingLevel('error')
  await call()
  t.same(messages, [], 'error → the info log is filtered')
})

t.test('raw: one GET stream per session (409), resumption not offered (405), Accept checked (406)', async (t) => {
  const { sessionId } = await openRawSession(raw)
  const opened = streamOpened()
  const first = await openGet(sessionId, { 'x-request-id': 'first-get' })
  t.equal(first.status, 200)
  t.match(first.headers['content-type'], /^text\/event-stream/)
  await opened
  const cases: Array<[string, Record<string, string>, number]> = [
    ['second GET → 409', {}, 409],
    ['Last-Event-ID → 405', { 'last-event-id': 'x.0' }, 405],
    ['Accept: application/json only → 406', { accept: 'application/json' }, 406],
    ['version header ≠ the session\'s → 400', { 'mcp-protocol-version': '2025-06-18' }, 400],
  ]
  for (const [name, headers, status] of cases) {
    const reply = await raw.send('GET', '/mcp', { headers: { accept: 'text/event-stream', ...sessionHeaders(sessionId), ...headers } })
    t.equal(reply.status, status, name)
    t.match(reply.json, { jsonrpc: '2.0', error: { code: -32600, message: String } }, `${name}: JSON-RPC body`)
  }
  first.close()
  // Its access line is written once the gateway has let the stream go (earlier GETs of other
  // subtests wrote theirs too: this one is told apart by its request id).
  await gateway.logs!.waitFor((record) => record.msg === 'mcp request' && record.reqId === 'first-get' && record.status === 200)
  const again = streamOpened()
  const second = await openGet(sessionId)
  t.equal(second.status, 200, 'after the first closed → a new one opens')
  await again
  second.close()
})

t.test('raw: resources/updated on the GET stream has no subscription id; subscribe errors', async (t) => {
  const { sessionId } = await openRawSession(raw)
  const opened = streamOpened()
  const get = await openGet(sessionId)
  await opened
  const uri = 'fixture://alpha/changelog'
  t.same((await legacyRpc(raw, sessionId, 'resources/subscribe', { uri })).json.result, {})
  await alpha.waitForEvent('listen-opened', (event) => event.listeners === 2)
  await legacyRpc(raw, sessionId, 'tools/call', { name: 'a__touch-resource', arguments: { uri } })
  t.same(await next(get.events), { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } })
  t.equal((await legacyRpc(raw, sessionId, 'resources/subscribe', {})).json.error?.code, -32602, 'no uri → -32602')
  get.close()
  await alpha.waitForEvent('listen-closed', (event) => event.listeners === 1)
  t.pass('the GET stream closed → its upstream listen closed (nothing left behind)')
})

t.test('raw: DELETE → 204, its GET stream ends, then 404 for every method', async (t) => {
  const { sessionId } = await openRawSession(raw)
  const opened = streamOpened()
  const get = await openGet(sessionId)
  await opened
  const deleted = await raw.send('DELETE', '/mcp', { headers: sessionHeaders(sessionId) })
  t.equal(deleted.status, 204)
  t.equal(deleted.text, '')
  const rest: unknown[] = []
  for await (const event of get.events) rest.push(event)
  t.same(rest, [], 'the GET stream ended with nothing more')
  const after: Array<[string, () => Promise<{ status: number; json: any }>]> = [
    ['POST', () => legacyRpc(raw, sessionId, 'ping')],
    ['GET', () => raw.send('GET', '/mcp', { headers: { accept: 'text/event-stream', ...sessionHeaders(sessionId) } })],
    ['DELETE', () => raw.send('DELETE', '/mcp', { headers: sessionHeaders(sessionId) })],
  ]
  for (const [method, send] of after) {
    const reply = await send()
    t.equal(reply.status, 404, `${method} after DELETE → 404`)
    t.match(reply.json, { jsonrpc: '2.0', error: { code: -32600 } }, `${method}: JSON-RPC body`)
  }
})

t.test('v1: terminateSession → DELETE accepted; the session is gone', async (t) => {
  const { client, transport } = await connectV1(t, gateway.url)
  const sessionId = transport.sessionId!
  t.same(await client.ping(), {})
  await transport.terminateSession()
  t.equal(transport.sessionId, undefined, 'the client dropped its id')
  t.equal((await legacyRpc(raw, sessionId, 'ping')).status, 404, 'the old id → 404')
})
