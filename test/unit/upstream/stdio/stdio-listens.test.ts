import t from 'tap'
import { pino } from 'pino'
import type { JsonRpcNotification } from '../../../../src/protocol/jsonrpc.ts'
import type { ListenSink } from '../../../../src/upstream/backend.ts'
import { createIdAllocator } from '../../../../src/upstream/stdio/stdio-ids.ts'
import { createListenRegistry } from '../../../../src/upstream/stdio/stdio-listens.ts'
import { createFakeSession } from '../../../helpers/stdio-fake-session.ts'

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId'
const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' }

function recordingSink() {
  const received: JsonRpcNotification[] = []
  const closed: string[] = []
  const sink: ListenSink = { onNotification: (notification) => received.push(notification), onClose: (reason) => closed.push(reason) }
  return { sink, received, closed }
}

function setup() {
  return createListenRegistry({ ids: createIdAllocator('gw'), logger: pino({ level: 'silent' }) })
}

function tagged(method: string, id: unknown): JsonRpcNotification {
  return { jsonrpc: '2.0', method, params: { _meta: { [SUBSCRIPTION_ID]: id } } }
}

t.test('modern: listen sent with its own id, tagged notifications routed as received (SUB-4, STDIO-5)', async (t) => {
  const registry = setup()
  const fake = createFakeSession()
  registry.attach({ session: fake.session, era: 'modern', meta })
  const a = recordingSink()
  const b = recordingSink()
  registry.open({ toolsListChanged: true }, a.sink)
  registry.open({ promptsListChanged: true }, b.sink)
  const [first, second] = fake.written.filter((entry) => entry.kind === 'request')
  t.same(first, { kind: 'request', id: 'gw-1', method: 'subscriptions/listen', params: { _meta: meta, notifications: { toolsListChanged: true } } })
  t.equal(second.id, 'gw-2')
  const ack = tagged('notifications/subscriptions/acknowledged', 'gw-2')
  t.ok(registry.route(ack, 'modern'))
  t.ok(registry.route(tagged('notifications/tools/list_changed', 'gw-1'), 'modern'))
  t.notOk(registry.route(tagged('notifications/tools/list_changed', 'gw-9'), 'modern'), 'unknown subscription → not routed')
  t.notOk(registry.route(tagged('notifications/tools/list_changed', 1), 'modern'), 'wrong JSON type → not routed')
  t.notOk(registry.route({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, 'modern'), 'untagged → not routed')
  t.same(a.received, [tagged('notifications/tools/list_changed', 'gw-1')])
  t.same(b.received, [ack])
})

t.test('modern: closer → notifications/cancelled for the listen id, nothing more delivered (SUB-8)', async (t) => {
  const registry = setup()
  const fake = createFakeSession()
  registry.attach({ session: fake.session, era: 'modern', meta })
  const a = recordingSink()
  const close = registry.open({ toolsListChanged: true }, a.sink)
  close()
  t.same(fake.written.at(-1), { kind: 'notify', method: 'notifications/cancelled', params: { requestId: 'gw-1', reason: 'listen closed by the gateway' } })
  t.notOk(registry.route(tagged('notifications/tools/list_changed', 'gw-1'), 'modern'))
  t.notOk(fake.reply('gw-1', { ok: true, result: {} }), 'its response is no longer awaited')
  t.same(a.closed, [], 'the caller closed it: no onClose')
})

t.test('modern: the backend ends or refuses a listen → onClose', async (t) => {
  const cases = [
    { name: 'listen result → ended', end: (fake: ReturnType<typeof createFakeSession>) => fake.reply('gw-1', { ok: true, result: { resultType: 'complete' } }), closed: ['the backend ended the subscription'] },
    { name: 'listen error → refused', end: (fake: ReturnType<typeof createFakeSession>) => fake.reply('gw-1', { ok: false, error: { code: -32603, message: 'Subscription limit reached' } }), closed: ['the backend refused the subscription: Subscription limit reached'] },
    { name: 'invalid response → ended', end: (fake: ReturnType<typeof createFakeSession>) => fake.reply('gw-1', { ok: 'invalid', detail: 'result is not an object' }), closed: [/invalid response/] },
    { name: 'server notifications/cancelled → ended (SUB-10)', end: (_fake: ReturnType<typeof createFakeSession>, registry: ReturnType<typeof setup>) => registry.route({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'gw-1' } }, 'modern'), closed: ['the backend cancelled the subscription'] },
    { name: 'child gone → kept for the next child', end: (fake: ReturnType<typeof createFakeSession>) => fake.reply('gw-1', { ok: 'gone', detail: 'exited' }), closed: [] },
  ]
  for (const entry of cases) {
    const registry = setup()
    const fake = createFakeSession()
    registry.attach({ session: fake.session, era: 'modern', meta })
    const a = recordingSink()
    registry.open({ toolsListChanged: true }, a.sink)
    entry.end(fake, registry)
    t.match(a.closed, entry.closed, entry.name)
  }
  const registry = setup()
  t.notOk(registry.route({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nope' } }, 'modern'), 'cancelled for no listen → not routed')
})

t.test('restart: listens kept while detached, sent again with new ids (SUB-12)', async (t) => {
  const registry = setup()
  const a = recordingSink()
  registry.open({ toolsListChanged: true }, a.sink)
  const first = createFakeSession()
  registry.attach({ session: first.session, era: 'modern', meta })
  t.equal(first.lastRequest().id, 'gw-1')
  registry.detach()
  const second = createFakeSession()
  registry.attach({ session: second.session, era: 'modern', meta })
  t.same(second.lastRequest(), { kind: 'request', id: 'gw-2', method: 'subscriptions/listen', params: { _meta: meta, notifications: { toolsListChanged: true } } })
  t.notOk(registry.route(tagged('notifications/tools/list_changed', 'gw-1'), 'modern'), 'the old id is dead')
  t.ok(registry.route(tagged('notifications/tools/list_changed', 'gw-2'), 'modern'))
  t.equal(a.received.length, 1)
})

t.test('legacy: resources/subscribe per URI, unsubscribe when no listen wants it; unsolicited changes go to every sink that asked (SUB-2)', async (t) => {
  const registry = setup()
  const fake = createFakeSession()
  registry.attach({ session: fake.session, era: 'legacy', meta })
  const tools = recordingSink()
  const both = recordingSink()
  const closeTools = registry.open({ toolsListChanged: true }, tools.sink)
  t.same(fake.written, [], 'no subscriptions/listen to a legacy child')
  const closeBoth = registry.open({ toolsListChanged: true, resourceSubscriptions: ['file:///a'] }, both.sink)
  t.match(fake.written, [{ method: 'resources/subscribe', params: { uri: 'file:///a' } }], 'the URI subscribed')
  const changed: JsonRpcNotification = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' }
  const updated: JsonRpcNotification = { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'file:///a/b' } }
  t.ok(registry.route(changed, 'legacy'))
  t.ok(registry.route(updated, 'legacy'))
  t.notOk(registry.route({ jsonrpc: '2.0', method: 'notifications/progress' }, 'legacy'))
  t.same(tools.received, [changed])
  t.same(both.received, [changed, updated])
  closeTools()
  t.equal(fake.written.length, 1, 'closing a listen without URIs writes nothing')
  closeBoth()
  t.match(fake.written.at(-1), { method: 'resources/unsubscribe', params: { uri: 'file:///a' } }, 'the last listen on the URI unsubscribes')
})

t.test('closeAll → every sink closed with the reason', async (t) => {
  const registry = setup()
  const fake = createFakeSession()
  registry.attach({ session: fake.session, era: 'modern', meta })
  const a = recordingSink()
  registry.open({}, a.sink)
  registry.closeAll('backend closed')
  t.same(a.closed, ['backend closed'])
  t.match(fake.written.at(-1), { kind: 'notify', method: 'notifications/cancelled' })
})

t.test('routeLog → every open listen that takes logs, none else; routed only when one took it', async (t) => {
  const registry = setup()
  const log: JsonRpcNotification = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } }
  t.notOk(registry.routeLog(log), 'no listen → not routed')
  const plain = recordingSink()
  registry.open({ toolsListChanged: true }, plain.sink)
  t.notOk(registry.routeLog(log), 'no listen takes logs → not routed')
  const logs: JsonRpcNotification[] = []
  const close = registry.open({}, { ...recordingSink().sink, onLog: (n) => logs.push(n) })
  t.ok(registry.routeLog(log), 'a listen that takes logs → routed')
  t.same(logs, [log])
  t.same(plain.received, [], 'never to onNotification')
  close()
  t.notOk(registry.routeLog(log), 'closed → not routed')
  t.equal(logs.length, 1)
})
