// Aggregated lists (G3, PAGE-*): pages span backends in configured order, the first backend keeps a
// colliding name, cursors are sealed and bound to the list they page (PAGE-6), a failing backend is
// left out. Pure paging logic, so the backends are in-memory fixtures of the Backend interface
// (test/helpers/fake-backend.ts), not processes: nothing here depends on a transport.
import t from 'tap'
import { pino } from 'pino'
import { GatewayError } from '../../../src/errors.ts'
import type { JsonObject } from '../../../src/protocol/jsonrpc.ts'
import { listAggregated, MergedLists, type AggregateDeps } from '../../../src/routing/aggregate.ts'
import { BackendSet, type BackendEntry } from '../../../src/routing/backend-set.ts'
import { Catalog } from '../../../src/routing/catalog.ts'
import { listKind } from '../../../src/routing/list-kinds.ts'
import { Sealer } from '../../../src/routing/seal.ts'
import { UpstreamParamsBuilder } from '../../../src/routing/upstream-params.ts'
import { BackendError } from '../../../src/upstream/backend.ts'
import { createFakeBackend, entryOf, type FakeBackend } from '../../helpers/fake-backend.ts'

const TOOLS = listKind('tools')

function tools(...names: string[]): JsonObject[] {
  return names.map((name) => ({ name, inputSchema: { type: 'object' } }))
}

function named(backend: FakeBackend, namespace: string): BackendEntry {
  const entry = entryOf(backend)
  return { backend, config: { ...entry.config, namespace } }
}

// A backend whose every list request fails as a transport would (BackendError).
function failing(name: string): FakeBackend {
  const backend = createFakeBackend(name, { lists: { tools: tools('never') } })
  backend.request = async () => {
    throw new BackendError(name, 'timeout', 'no answer within 50ms')
  }
  return backend
}

function setup(entries: BackendEntry[], pageSize: number) {
  const records: JsonObject[] = []
  const logger = pino({ level: 'warn' }, { write: (line: string) => records.push(JSON.parse(line)) })
  const deps: AggregateDeps = {
    backends: new BackendSet(entries, '__'),
    catalog: new Catalog(new UpstreamParamsBuilder({ name: 'gateway', version: '0.0.0' })),
    sealer: new Sealer('test-secret-test-secret-test-secret'),
    logger,
    pageSize,
  }
  return { deps, records }
}

// Every page of a listing, following nextCursor.
async function listAll(deps: AggregateDeps): Promise<string[][]> {
  const pages: string[][] = []
  let cursor: unknown
  do {
    const page = await listAggregated(deps, TOOLS, cursor === undefined ? {} : { cursor })
    pages.push((page.tools as JsonObject[]).map((tool) => String(tool.name)))
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return pages
}

t.test('paging across backends', async (t) => {
  const a = createFakeBackend('a', { lists: { tools: tools('x', 'y', 'z') } })
  const b = createFakeBackend('b', { lists: { tools: tools('x', 'w') } })
  const cases: Array<[string, number, string[][]]> = [
    ['page size 2', 2, [['a__x', 'a__y'], ['a__z', 'b__x'], ['b__w']]],
    ['page size 3', 3, [['a__x', 'a__y', 'a__z'], ['b__x', 'b__w']]],
    ['page size 5 (exactly all)', 5, [['a__x', 'a__y', 'a__z', 'b__x', 'b__w']]],
    ['page size 100', 100, [['a__x', 'a__y', 'a__z', 'b__x', 'b__w']]],
  ]
  for (const [name, pageSize, expected] of cases) {
    const { deps } = setup([named(a, 'a'), named(b, 'b')], pageSize)
    t.same(await listAll(deps), expected, `${name} → ${JSON.stringify(expected)}`)
  }
  const { deps } = setup([named(a, 'a'), named(b, 'b')], 100)
  t.notOk('nextCursor' in (await listAggregated(deps, TOOLS, {})), 'one page → no nextCursor')
})

t.test('name collision (empty namespaces) → first backend in configured order wins, logged', async (t) => {
  const first = createFakeBackend('first', { lists: { tools: [{ name: 'echo', description: 'first' }] } })
  const second = createFakeBackend('second', { lists: { tools: [{ name: 'echo', description: 'second' }, { name: 'add' }] } })
  const { deps, records } = setup([entryOf(first), entryOf(second)], 10)
  const page = await listAggregated(deps, TOOLS, {})
  t.same(page.tools, [{ name: 'echo', description: 'first' }, { name: 'add' }], 'echo from "first", add from "second"')
  t.match(records, [{ level: 40, backend: 'second', name: 'echo', msg: 'tools name collision; first backend wins' }], 'one warning naming the loser')
})

t.test('cursor bound to the list it pages (PAGE-4, PAGE-6)', async (t) => {
  const list = tools('p', 'q', 'r')
  const a = createFakeBackend('a', { lists: { tools: list } })
  const { deps } = setup([named(a, 'a')], 2)
  const first = await listAggregated(deps, TOOLS, {})
  const cursor = first.nextCursor
  t.type(cursor, 'string', 'first page → a cursor')
  t.same((await listAggregated(deps, TOOLS, { cursor })).tools, [{ name: 'a__r', inputSchema: { type: 'object' } }], 'same list → the next page')
  const invalid: Array<[string, unknown]> = [
    ['a tampered cursor', `${String(cursor)}x`],
    ['a cursor of another list kind', deps.sealer.seal({ k: 'prompts', o: 2 })],
    ['a negative offset', deps.sealer.seal({ k: 'tools', o: -1 })],
    ['not a string', 42],
  ]
  for (const [name, bad] of invalid) {
    await t.rejects(listAggregated(deps, TOOLS, { cursor: bad }), { code: 'MCP_GATEWAY_CURSOR_INVALID' }, `${name} → -32602 invalid cursor`)
  }
  list.splice(0, 1, { name: 'o' }) // the backend's list changes between pages
  deps.catalog.invalidate('a')
  const changed = listAggregated(deps, TOOLS, { cursor })
  await t.rejects(changed, GatewayError, 'list changed since the cursor → rejected')
  await t.rejects(changed, { code: 'MCP_GATEWAY_CURSOR_INVALID', message: /the list changed/ }, 'list changed → -32602 "start again"')
})

t.test('a failing backend → left out of the list, logged once, the others listed', async (t) => {
  const live = createFakeBackend('live', { lists: { tools: tools('echo') } })
  const { deps, records } = setup([named(failing('slow'), 'slow'), named(live, 'live')], 10)
  const page = await listAggregated(deps, TOOLS, {})
  t.same((page.tools as JsonObject[]).map((tool) => tool.name), ['live__echo'])
  t.equal(records.length, 1, 'one log record')
  t.match(records[0], { level: 40, backend: 'slow', err: { type: 'BackendError', message: 'no answer within 50ms' } })
})

t.test('a backend without the capability, or down → not asked', async (t) => {
  const noTools = createFakeBackend('none', { capabilities: { prompts: {} }, lists: { tools: tools('hidden') } })
  const down = createFakeBackend('down', { up: false, lists: { tools: tools('hidden') } })
  const live = createFakeBackend('live', { lists: { tools: tools('echo') } })
  const { deps, records } = setup([entryOf(noTools), entryOf(down), entryOf(live)], 10)
  t.same((await listAggregated(deps, TOOLS, {})).tools, tools('echo'))
  t.same([noTools.calls.length, down.calls.length], [0, 0], 'neither was asked')
  t.same(records, [], 'nothing logged')
})

t.test('hints → the shortest remaining ttlMs, private if any part is (CACHE-12)', async (t) => {
  const pub = createFakeBackend('pub', { lists: { tools: tools('a') } })
  const priv = createFakeBackend('priv', { lists: { tools: tools('b') } })
  const request = priv.request
  priv.request = async (call) => {
    const reply = await request(call)
    return reply.ok ? { ok: true, result: { ...reply.result, ttlMs: 5_000, cacheScope: 'private' } } : reply
  }
  const { deps } = setup([named(pub, 'p'), named(priv, 'q')], 10)
  const page = await listAggregated(deps, TOOLS, {})
  t.equal(page.cacheScope, 'private')
  t.ok(typeof page.ttlMs === 'number' && page.ttlMs <= 5_000 && page.ttlMs > 0, `ttlMs ${page.ttlMs} → at most the private part's 5000`)
})

// A large list is merged (names mapped, tools checked, digest computed) once per catalog
// generation, not once per page: 20 pages of 2,000 tools check each tool once.
t.test('paging a large list with MergedLists → merged once per generation; a changed list is merged again', async (t) => {
  const list = tools(...Array.from({ length: 2_000 }, (_, i) => `t${i}`))
  const a = createFakeBackend('a', { lists: { tools: list } })
  const { deps } = setup([named(a, 'a')], 100)
  let checked = 0
  const counted: AggregateDeps = { ...deps, merged: new MergedLists(), acceptTool: () => (checked++, true) }
  const pages = await listAll(counted)
  t.equal(pages.length, 20, '20 pages')
  t.equal(pages.flat().length, 2_000, 'every tool once')
  t.equal(checked, 2_000, 'each tool checked once over all 20 pages')
  const first = await listAggregated(counted, TOOLS, {})
  t.equal(checked, 2_000, 'the same generation again → nothing merged')
  list.splice(0, 1, { name: 'changed' })
  counted.catalog.invalidate('a')
  await t.rejects(listAggregated(counted, TOOLS, { cursor: first.nextCursor }), { code: 'MCP_GATEWAY_CURSOR_INVALID' }, 'a new generation → merged again, old cursors invalid')
  t.equal(checked, 4_000, 'merged once more for the new generation')
})
