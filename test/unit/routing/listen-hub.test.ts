// subscriptions/listen fan-in (G9, SUB-*, CACHE-8): one upstream list-change listen per backend,
// one ref-counted upstream per (backend, URI), re-opened with backoff, caught up after a gap.
import { mock } from 'node:test'
import t from 'tap'
import { pino } from 'pino'
import type { JsonObject, JsonRpcNotification } from '../../../src/protocol/jsonrpc.ts'
import { BackendSet } from '../../../src/routing/backend-set.ts'
import { Catalog } from '../../../src/routing/catalog.ts'
import { listKind, type ListKind } from '../../../src/routing/list-kinds.ts'
import { ListenHub, type ClientSubscription } from '../../../src/routing/listen-hub.ts'
import { RESOURCE_UPDATED } from '../../../src/protocol/subscriptions.ts'
import { UpstreamParamsBuilder } from '../../../src/routing/upstream-params.ts'
import { BackendError } from '../../../src/upstream/backend.ts'
import { createFakeBackend, entryOf, FULL_CAPABILITIES, type FakeBackend, type FakeListen } from '../../helpers/fake-backend.ts'

const logger = pino({ level: 'silent' })
const TOOLS = 'notifications/tools/list_changed'
const PROMPTS = 'notifications/prompts/list_changed'
const RESOURCES = 'notifications/resources/list_changed'
const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged'
const KINDS: Array<ListKind['id']> = ['tools', 'prompts', 'resources', 'templates']

// The part of a tap test the helpers need.
interface Tap {
  teardown(fn: () => void): void
}

// Every test runs on node:test's clock: retries are setTimeout, the "stayed up" check is Date.now().
function useMockClock(t: Tap): void {
  mock.timers.enable({ apis: ['setTimeout', 'Date'] })
  t.teardown(() => mock.timers.reset())
}

function setup(t: Tap, backends: FakeBackend[]) {
  const set = new BackendSet(backends.map(entryOf), '__')
  const catalog = new Catalog(new UpstreamParamsBuilder({ name: 'gateway', version: '0.0.0' }))
  const hub = new ListenHub(set, catalog, { logger })
  t.teardown(() => hub.close())
  return { set, catalog, hub }
}

interface FakeClient extends ClientSubscription {
  got: JsonRpcNotification[]
}

function createClient(...wanted: string[]): FakeClient {
  const got: JsonRpcNotification[] = []
  return { got, wants: (n) => wanted.includes(n.method), deliver: (n) => { got.push(n) } }
}

function notification(method: string, params?: JsonObject): JsonRpcNotification {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }
}

function updated(uri: string): JsonRpcNotification {
  return notification(RESOURCE_UPDATED, { uri })
}

function listenFor(backend: FakeBackend, uri: string): FakeListen {
  const found = backend.openListens().find((listen) => (listen.filter.resourceSubscriptions as string[] | undefined)?.[0] === uri)
  if (found === undefined) throw new Error(`no open listen for ${uri}`)
  return found
}

async function warm(catalog: Catalog, backends: FakeBackend[]): Promise<void> {
  for (const backend of backends) for (const kind of KINDS) await catalog.get(backend, listKind(kind))
}

function cached(catalog: Catalog, backend: FakeBackend): Array<ListKind['id']> {
  return KINDS.filter((kind) => catalog.peek(backend, listKind(kind)) !== undefined)
}

t.test('start → one list-change listen per backend, its filter derived from capabilities', async (t) => {
  useMockClock(t)
  const cases: Array<{ name: string; capabilities: JsonObject; filter: JsonObject | undefined }> = [
    { name: 'tools, prompts, resources all listChanged', capabilities: FULL_CAPABILITIES, filter: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true } },
    { name: 'only tools.listChanged', capabilities: { tools: { listChanged: true }, prompts: {} }, filter: { toolsListChanged: true } },
    { name: 'resources.listChanged only', capabilities: { resources: { listChanged: true } }, filter: { resourcesListChanged: true } },
    { name: 'listChanged not true', capabilities: { tools: { listChanged: 'yes' }, prompts: { listChanged: false } }, filter: undefined },
    { name: 'subscribe but no listChanged', capabilities: { tools: {}, resources: { subscribe: true } }, filter: undefined },
    { name: 'no capabilities', capabilities: {}, filter: undefined },
  ]
  const backends = cases.map((entry, index) => createFakeBackend(`b${index}`, { capabilities: entry.capabilities }))
  const { hub } = setup(t, [...backends, createFakeBackend('nolisten', { listen: false })])
  hub.start()
  hub.start()
  mock.timers.tick(120_000)
  cases.forEach((entry, index) => {
    const filters = backends[index].listens.map((listen) => listen.filter)
    if (entry.filter === undefined) t.same(filters, [], `${entry.name} → no listen, even after retries`)
    else t.same(filters, [entry.filter], `${entry.name} → one listen with ${JSON.stringify(entry.filter)}`)
  })
})

t.test('backend down at start → no listen until it is up, then one on the next retry', async (t) => {
  useMockClock(t)
  const down = createFakeBackend('down', { up: false })
  const { hub } = setup(t, [down])
  hub.start()
  t.equal(down.listens.length, 0, 'down → no listen')
  mock.timers.tick(500)
  t.equal(down.listens.length, 0, 'still down at 500 ms → no listen')
  down.up = true
  mock.timers.tick(999)
  t.equal(down.listens.length, 0, 'up, next retry (1000 ms) not due yet → no listen')
  mock.timers.tick(1)
  t.equal(down.listens.length, 1, 'up, retry due → one listen')
})

t.test('list change from a backend → its catalog entries invalidated, delivered to the clients that want it', async (t) => {
  useMockClock(t)
  const cases: Array<{ method: string; invalidated: Array<ListKind['id']> }> = [
    { method: TOOLS, invalidated: ['tools'] },
    { method: PROMPTS, invalidated: ['prompts'] },
    { method: RESOURCES, invalidated: ['resources', 'templates'] },
    { method: 'notifications/message', invalidated: [] },
    { method: RESOURCE_UPDATED, invalidated: [] },
  ]
  for (const entry of cases) {
    const a = createFakeBackend('a')
    const b = createFakeBackend('b')
    const { hub, catalog } = setup(t, [a, b])
    await warm(catalog, [a, b])
    hub.start()
    const clients = [createClient(TOOLS), createClient(PROMPTS), createClient(RESOURCES), createClient()]
    for (const client of clients) hub.subscribe(client)
    const gone = createClient(TOOLS, PROMPTS, RESOURCES)
    hub.subscribe(gone)()
    const sent = notification(entry.method)
    a.lastListen().sink.onNotification(sent)
    t.same(cached(catalog, a), KINDS.filter((kind) => !entry.invalidated.includes(kind)), `${entry.method} → ${JSON.stringify(entry.invalidated)} of a invalidated`)
    t.same(cached(catalog, b), KINDS, `${entry.method} → nothing of b invalidated`)
    const expected = clients.map((client) => (client.wants(sent) ? [sent] : []))
    t.same(clients.map((client) => client.got), expected, `${entry.method} → only clients wanting it get it`)
    t.same(gone.got, [], `${entry.method} → an unsubscribed client gets nothing`)
    hub.close()
  }
})

t.test('log outside a request (ListenSink.onLog) → the clients that want it, logger named after the backend; resource listens take none', async (t) => {
  useMockClock(t)
  const a = createFakeBackend('a', { lists: { resources: [{ uri: 'file:///a' }] } })
  const entry = entryOf(a)
  const set = new BackendSet([{ ...entry, config: { ...entry.config, namespace: 'ns' } }], '__')
  const hub = new ListenHub(set, new Catalog(new UpstreamParamsBuilder({ name: 'gateway', version: '0.0.0' })), { logger })
  t.teardown(() => hub.close())
  hub.start()
  const wanting = createClient('notifications/message')
  const other = createClient(TOOLS)
  hub.subscribe(wanting, await hub.routeResources(['file:///a']))
  hub.subscribe(other)
  const list = a.listens[0]
  list.sink.onLog?.(notification('notifications/message', { level: 'info', data: 'x', logger: 'db' }))
  list.sink.onLog?.(notification('notifications/message', { level: 'info', data: 'y' }))
  t.same(wanting.got, [
    notification('notifications/message', { level: 'info', data: 'x', logger: 'ns__db' }),
    notification('notifications/message', { level: 'info', data: 'y', logger: 'ns' }),
  ], 'delivered in order, logger namespaced')
  t.same(other.got, [], 'a client that does not want logs gets none')
  t.equal(listenFor(a, 'file:///a').sink.onLog, undefined, 'a resource listen takes no logs')
  hub.close()
  list.sink.onLog?.(notification('notifications/message', { level: 'info', data: 'late' }))
  t.equal(wanting.got.length, 2, 'after close → nothing')
})

t.test('list change with a method named like an Object.prototype member → ignored', async (t) => {
  useMockClock(t)
  const a = createFakeBackend('a')
  const { hub } = setup(t, [a])
  hub.start()
  const client = createClient(TOOLS)
  hub.subscribe(client)
  for (const method of ['constructor', 'toString', '__proto__']) {
    t.doesNotThrow(() => a.lastListen().sink.onNotification(notification(method)), `${method} → no throw`)
  }
  t.same(client.got, [], 'nothing delivered')
})

t.test('routeResources → URIs owned by a subscribe-capable backend kept, others dropped', async (t) => {
  useMockClock(t)
  const sub = createFakeBackend('sub', {
    capabilities: { resources: { subscribe: true } },
    lists: { resources: [{ uri: 'file:///a' }], resourceTemplates: [{ uriTemplate: 'file:///t/{name}' }] },
  })
  const plain = createFakeBackend('plain', { capabilities: { resources: { listChanged: true } }, lists: { resources: [{ uri: 'mem://b' }] } })
  const mute = createFakeBackend('mute', { capabilities: { resources: { subscribe: true } }, listen: false, lists: { resources: [{ uri: 'mute://c' }] } })
  const { hub, set } = setup(t, [sub, plain, mute])
  const subEntry = set.get('sub')
  const cases: Array<{ name: string; uri: string; entry: typeof subEntry }> = [
    { name: 'listed by a subscribe-capable backend', uri: 'file:///a', entry: subEntry },
    { name: 'matching its template', uri: 'file:///t/x', entry: subEntry },
    { name: 'owned by a backend without resources.subscribe', uri: 'mem://b', entry: undefined },
    { name: 'owned by a backend without listen()', uri: 'mute://c', entry: undefined },
    { name: 'owned by nobody (several offer resources)', uri: 'other://z', entry: undefined },
  ]
  for (const entry of cases) {
    const routes = await hub.routeResources([entry.uri])
    const expected = entry.entry === undefined ? [] : [{ uri: entry.uri, entry: entry.entry }]
    t.same(routes, expected, `${entry.uri} (${entry.name}) → ${entry.entry === undefined ? 'dropped' : 'kept'}`)
    if (entry.entry !== undefined) t.equal(routes[0].entry, entry.entry, `${entry.uri} → the owning entry itself`)
  }
  const all = await hub.routeResources([...cases.map((entry) => entry.uri), 'file:///a'])
  t.same(all.map((route) => route.uri), ['file:///a', 'file:///t/x'], 'all at once, with a duplicate → the kept ones, once each, in order')
})

t.test('routeResources when an owner cannot be decided → left out of the ack (SUB-3), logged once per backend at warn', async (t) => {
  useMockClock(t)
  const slow = createFakeBackend('slow', { capabilities: { resources: { subscribe: true } } })
  slow.request = async () => {
    throw new BackendError('slow', 'timeout', 'resources/list timed out')
  }
  const live = createFakeBackend('live', { capabilities: { resources: { subscribe: true } }, lists: { resources: [{ uri: 'file:///a' }] } })
  const records: JsonObject[] = []
  const capture = pino({ level: 'info' }, { write: (line: string) => records.push(JSON.parse(line)) })
  const set = new BackendSet([slow, live].map(entryOf), '__')
  const hub = new ListenHub(set, new Catalog(new UpstreamParamsBuilder({ name: 'gateway', version: '0.0.0' })), { logger: capture })
  t.teardown(() => hub.close())
  const routes = await hub.routeResources(['file:///a', 'file:///x', 'file:///y'])
  t.same(routes.map((route) => [route.uri, route.entry.backend.name]), [['file:///a', 'live']], 'owned by the live backend → kept; undecidable → left out')
  t.equal(records.length, 1, 'one log record for two URIs failing on one backend')
  t.match(records[0], { level: 40, backend: 'slow', reason: 'timeout', uris: ['file:///x', 'file:///y'], err: { type: 'BackendError' } })
})

t.test('routeResources over the per-backend listen budget → extra new URIs dropped, open ones kept', async (t) => {
  useMockClock(t)
  const only = createFakeBackend('only', { capabilities: { resources: { subscribe: true } } })
  const { hub } = setup(t, [only])
  const uris = Array.from({ length: 257 }, (_, index) => `mem://r/${index}`)
  const routes = await hub.routeResources(uris)
  t.equal(routes.length, 256, '257 new URIs → 256 routed')
  hub.subscribe(createClient(), routes)
  t.equal(only.listens.length, 256, '256 routes → 256 upstream listens')
  const again = await hub.routeResources(['mem://r/0', 'mem://r/999'])
  t.same(again.map((route) => route.uri), ['mem://r/0'], 'budget full → an open URI kept, a new one dropped')
})

t.test('two clients subscribe to one URI → one upstream listen, closed when the last leaves', async (t) => {
  useMockClock(t)
  const s = createFakeBackend('s', { lists: { resources: [{ uri: 'file:///a' }] } })
  const { hub } = setup(t, [s])
  const routes = await hub.routeResources(['file:///a'])
  const leave1 = hub.subscribe(createClient(), routes)
  const leave2 = hub.subscribe(createClient(), routes)
  t.same(s.listens.map((listen) => listen.filter), [{ resourceSubscriptions: ['file:///a'] }], 'two subscribers → one listen for the URI')
  leave1()
  t.equal(s.listens[0].closes, 0, 'first leaves → still open')
  leave2()
  t.equal(s.listens[0].closes, 1, 'last leaves → closed')
  leave2()
  t.equal(s.listens[0].closes, 1, 'leaving twice → closed once')
  mock.timers.tick(120_000)
  t.equal(s.listens.length, 1, 'closed by the hub → never re-opened')
  const leave3 = hub.subscribe(createClient(), routes)
  t.equal(s.openListens().length, 1, 'a new subscriber after that → a new listen')
  leave3()
})

t.test('resources/updated → only that URI\'s clients, once for a client subscribed to parent and child', async (t) => {
  useMockClock(t)
  const s = createFakeBackend('s', { lists: { resources: [{ uri: 'file:///dir' }, { uri: 'file:///dir/a' }, { uri: 'file:///other' }] } })
  const { hub } = setup(t, [s])
  const both = createClient()
  const parent = createClient()
  const other = createClient()
  hub.subscribe(both, await hub.routeResources(['file:///dir', 'file:///dir/a']))
  hub.subscribe(parent, await hub.routeResources(['file:///dir']))
  hub.subscribe(other, await hub.routeResources(['file:///other']))
  t.equal(s.listens.length, 3, 'three URIs → three listens')
  const cases: Array<{ name: string; streams: string[]; sent: JsonRpcNotification; counts: [number, number, number] }> = [
    { name: 'child update sent on the parent and the child streams', streams: ['file:///dir', 'file:///dir/a'], sent: updated('file:///dir/a'), counts: [1, 1, 0] },
    { name: 'sibling update on the parent stream', streams: ['file:///dir'], sent: updated('file:///dir/b'), counts: [1, 1, 0] },
    { name: 'parent update on the parent stream', streams: ['file:///dir'], sent: updated('file:///dir'), counts: [1, 1, 0] },
    { name: 'other update on its stream', streams: ['file:///other'], sent: updated('file:///other'), counts: [0, 0, 1] },
    { name: 'a URI the stream does not cover', streams: ['file:///dir'], sent: updated('file:///elsewhere'), counts: [0, 0, 0] },
    { name: 'a prefix that is not a sub-resource', streams: ['file:///dir'], sent: updated('file:///dirt'), counts: [0, 0, 0] },
    { name: 'an update without a uri', streams: ['file:///dir'], sent: notification(RESOURCE_UPDATED, {}), counts: [0, 0, 0] },
    { name: 'a list change on a resource stream', streams: ['file:///dir'], sent: notification(TOOLS), counts: [0, 0, 0] },
  ]
  for (const entry of cases) {
    for (const client of [both, parent, other]) client.got.length = 0
    for (const uri of entry.streams) listenFor(s, uri).sink.onNotification(entry.sent)
    t.same([both, parent, other].map((client) => client.got.length), entry.counts, `${entry.name} → [parent+child, parent, other] get ${JSON.stringify(entry.counts)}`)
    for (const client of [both, parent, other]) for (const got of client.got) t.equal(got, entry.sent, `${entry.name} → delivered unchanged`)
  }
})

t.test('upstream listen closed → re-opened with backoff 500 ms doubling to 30 s (SUB-11)', async (t) => {
  useMockClock(t)
  const a = createFakeBackend('a')
  const { hub } = setup(t, [a])
  hub.start()
  const filter = a.lastListen().filter
  for (const delayMs of [500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]) {
    const count = a.listens.length
    a.lastListen().sink.onClose('dropped')
    mock.timers.tick(delayMs - 1)
    t.equal(a.listens.length, count, `closed → not re-opened at ${delayMs - 1} ms`)
    mock.timers.tick(1)
    t.equal(a.listens.length, count + 1, `closed → re-opened at ${delayMs} ms`)
    t.same(a.lastListen().filter, filter, `re-opened at ${delayMs} ms → same filter`)
  }
})

t.test('listen that stayed up over 30 s then closed → backoff starts over at 500 ms', async (t) => {
  useMockClock(t)
  const a = createFakeBackend('a')
  const { hub } = setup(t, [a])
  hub.start()
  for (const delayMs of [500, 1_000]) {
    a.lastListen().sink.onClose('dropped')
    mock.timers.tick(delayMs)
  }
  t.equal(a.listens.length, 3, 'two quick drops → third listen (next delay 2000 ms)')
  mock.timers.tick(30_001)
  a.lastListen().sink.onClose('dropped after a long while')
  mock.timers.tick(500)
  t.equal(a.listens.length, 4, 'up 30001 ms, then closed → re-opened after 500 ms')
})

t.test('resource listen closed → re-opened; last client leaving during the backoff → no re-open', async (t) => {
  useMockClock(t)
  const s = createFakeBackend('s', { lists: { resources: [{ uri: 'file:///a' }] } })
  const { hub } = setup(t, [s])
  const leave = hub.subscribe(createClient(), await hub.routeResources(['file:///a']))
  s.lastListen().sink.onClose('dropped')
  mock.timers.tick(500)
  t.same(s.listens.map((listen) => listen.filter), [{ resourceSubscriptions: ['file:///a'] }, { resourceSubscriptions: ['file:///a'] }], 'closed → re-opened with the same URI')
  s.lastListen().sink.onClose('dropped again')
  leave()
  mock.timers.tick(120_000)
  t.equal(s.listens.length, 2, 'left during the backoff → retry cancelled')
})

t.test('stream established after a gap → clients caught up; first establishment → nothing', async (t) => {
  useMockClock(t)
  const cases: Array<{ name: string; establish: (listen: FakeListen) => void }> = [
    { name: 'sink.onOpen', establish: (listen) => listen.sink.onOpen?.() },
    { name: 'acknowledged notification', establish: (listen) => listen.sink.onNotification(notification(ACKNOWLEDGED, { notifications: listen.filter })) },
  ]
  for (const entry of cases) {
    const a = createFakeBackend('a', { lists: { resources: [{ uri: 'file:///a' }, { uri: 'file:///b' }] } })
    const toolsOnly = createFakeBackend('t', { capabilities: { tools: { listChanged: true } } })
    const { hub, catalog } = setup(t, [a, toolsOnly])
    const lists = createClient(TOOLS, PROMPTS, RESOURCES)
    const subscriber = createClient()
    const bystander = createClient()
    hub.start()
    hub.subscribe(lists)
    hub.subscribe(subscriber, await hub.routeResources(['file:///a']))
    hub.subscribe(bystander, await hub.routeResources(['file:///b']))
    await warm(catalog, [a])
    const streams = (): FakeListen[] => [a.listens.findLast((l) => l.filter.toolsListChanged === true)!, toolsOnly.lastListen(), listenFor(a, 'file:///a')]
    for (const listen of streams()) entry.establish(listen)
    t.same([lists.got, subscriber.got, bystander.got], [[], [], []], `${entry.name}, first establishment → nothing delivered`)
    t.same(cached(catalog, a), KINDS, `${entry.name}, first establishment → catalog kept`)
    for (const listen of streams()) listen.sink.onClose('dropped')
    mock.timers.tick(500)
    t.same([lists.got, subscriber.got], [[], []], `${entry.name}, re-opened but not yet established → nothing delivered`)
    for (const listen of streams()) entry.establish(listen)
    t.same(lists.got.map((n) => n.method), [TOOLS, PROMPTS, RESOURCES, TOOLS], `${entry.name}, re-established → each list change its backend's filter names`)
    t.same(subscriber.got, [updated('file:///a')], `${entry.name}, resource listen re-established → resources/updated for its URI`)
    t.same(bystander.got, [], `${entry.name} → a client of another URI gets nothing`)
    t.same(cached(catalog, a), [], `${entry.name}, catch-up → a's catalog invalidated`)
    hub.close()
  }
})

t.test('stream dropped before it was ever established, then established → no catch-up (first establishment)', async (t) => {
  useMockClock(t)
  const a = createFakeBackend('a')
  const { hub } = setup(t, [a])
  const client = createClient(TOOLS, PROMPTS, RESOURCES)
  hub.subscribe(client)
  hub.start()
  a.lastListen().sink.onClose('refused')
  mock.timers.tick(500)
  a.lastListen().sink.onOpen?.()
  t.same(client.got, [])
})

t.test('close() → every upstream closed, retries stopped, late events ignored', async (t) => {
  useMockClock(t)
  const a = createFakeBackend('a', { lists: { resources: [{ uri: 'file:///a' }] } })
  const b = createFakeBackend('b', { capabilities: { tools: { listChanged: true } } })
  const { hub } = setup(t, [a, b])
  const client = createClient(TOOLS, PROMPTS, RESOURCES)
  hub.start()
  hub.subscribe(client, await hub.routeResources(['file:///a']))
  b.lastListen().sink.onClose('dropped')
  const aListens = a.openListens()
  t.equal(aListens.length, 2, 'a → list listen and resource listen open')
  hub.close()
  t.same(a.listens.map((listen) => listen.closes), [1, 1], 'open listens → each closed once')
  mock.timers.tick(120_000)
  t.same([a.listens.length, b.listens.length], [2, 1], 'pending retry → cancelled; nothing re-opened')
  hub.start()
  t.same([a.listens.length, b.listens.length], [2, 1], 'start() after close() → nothing opened')
  aListens[0].sink.onNotification(notification(TOOLS))
  aListens[1].sink.onNotification(updated('file:///a'))
  aListens[0].sink.onClose('late')
  mock.timers.tick(120_000)
  t.same(client.got, [], 'late notifications → not delivered')
  t.equal(a.listens.length, 2, 'late onClose → not re-opened')
})

t.test('late onOpen on a stopped upstream → no catch-up', async (t) => {
  useMockClock(t)
  const a = createFakeBackend('a')
  const { hub } = setup(t, [a])
  const client = createClient(TOOLS, PROMPTS, RESOURCES)
  hub.subscribe(client)
  hub.start()
  a.lastListen().sink.onOpen?.()
  a.lastListen().sink.onClose('dropped')
  mock.timers.tick(500)
  const reopened = a.lastListen()
  hub.close()
  reopened.sink.onOpen?.()
  t.same(client.got, [], 'stopped before it was established → nothing delivered')
})
