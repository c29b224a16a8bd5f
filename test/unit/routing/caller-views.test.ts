// Per-caller views (G3 "Per-user views", CACHE-12, G12): a listing filtered by what the caller may
// use and then private; cursors bound to the caller; private backend lists kept per caller, public
// ones shared; list fetches made on the caller's behalf.
import t from 'tap'
import { pino } from 'pino'
import { GatewayError } from '../../../src/errors.ts'
import type { JsonObject } from '../../../src/protocol/jsonrpc.ts'
import { Principal } from '../../../src/auth/principal.ts'
import { listAggregated, type AggregateDeps } from '../../../src/routing/aggregate.ts'
import { BackendSet } from '../../../src/routing/backend-set.ts'
import { Catalog } from '../../../src/routing/catalog.ts'
import { listKind } from '../../../src/routing/list-kinds.ts'
import { Sealer } from '../../../src/routing/seal.ts'
import { UpstreamParamsBuilder } from '../../../src/routing/upstream-params.ts'
import { createFakeBackend, entryOf } from '../../helpers/fake-backend.ts'

const TOOLS = listKind('tools')
const alice = new Principal({ kind: 'user', subject: 'alice', clientId: 'app', scopes: ['mcp'] })
const bob = new Principal({ kind: 'user', subject: 'bob', clientId: 'app', scopes: ['mcp'] })
const names = (page: JsonObject): string[] => (page.tools as JsonObject[]).map((tool) => String(tool.name))

function deps(catalog: Catalog, pageSize = 2): AggregateDeps {
  const backend = createFakeBackend('a', { lists: { tools: ['x', 'admin_y', 'z', 'admin_w'].map((name) => ({ name })) } })
  return { backends: new BackendSet([entryOf(backend)], '__'), catalog, sealer: new Sealer('test-secret-test-secret-test-secret'), logger: pino({ level: 'silent' }), pageSize }
}

t.test('a filtered listing: only visible items, private, cursor bound to the caller', async (t) => {
  const base = deps(new Catalog(new UpstreamParamsBuilder({ name: 'gw', version: '0' })))
  const view = { binding: alice.binding, visible: (name: string) => !name.startsWith('admin_') }
  const first = await listAggregated({ ...base, view }, TOOLS, {})
  t.same(names(first), ['x', 'z'], 'admin tools left out')
  t.equal(first.cacheScope, 'private', 'a caller-dependent list → private (CAP-4)')
  const unfiltered = await listAggregated({ ...base, view: { binding: alice.binding } }, TOOLS, {})
  t.same(names(unfiltered), ['x', 'admin_y'], 'no rule → everything, first page')
  t.equal(unfiltered.cacheScope, 'public', 'no rule → the backends\' own scope')
  const cursor = unfiltered.nextCursor
  t.same(names(await listAggregated({ ...base, view: { binding: alice.binding } }, TOOLS, { cursor })), ['z', 'admin_w'], 'alice\'s cursor → her next page')
  const stolen = await listAggregated({ ...base, view: { binding: bob.binding } }, TOOLS, { cursor }).catch((err: unknown) => err)
  t.type(stolen, GatewayError, 'bob presenting alice\'s cursor → refused')
  t.equal((stolen as GatewayError).code, 'MCP_GATEWAY_CURSOR_INVALID', 'as an invalid cursor (-32602)')
  const anonymous = await listAggregated(base, TOOLS, { cursor }).catch((err: unknown) => err)
  t.type(anonymous, GatewayError, 'an anonymous caller presenting it → refused too')
})

t.test('catalog: private lists per caller, public ones shared, fetched on the caller\'s behalf', async (t) => {
  let scope = 'private'
  const backend = createFakeBackend('a')
  backend.request = async (call) => {
    backend.calls.push(call)
    return { ok: true, result: { tools: [{ name: `for-${call.principal?.subject ?? 'gateway'}` }], ttlMs: 60_000, cacheScope: scope } }
  }
  const catalog = new Catalog(new UpstreamParamsBuilder({ name: 'gw', version: '0' }))
  const forAlice = await catalog.forPrincipal(alice).get(backend, TOOLS)
  const forBob = await catalog.forPrincipal(bob).get(backend, TOOLS)
  t.same([forAlice.items[0].name, forBob.items[0].name], ['for-alice', 'for-bob'], 'private → each caller gets their own')
  t.same(backend.calls.map((c) => c.principal?.subject), ['alice', 'bob'], 'each fetch made on the caller\'s behalf (their credential)')
  t.equal((await catalog.forPrincipal(alice).get(backend, TOOLS)).items[0].name, 'for-alice', 'alice again → her cached copy')
  t.equal(backend.calls.length, 2, 'no third fetch')
  catalog.invalidate('a')
  scope = 'public'
  await catalog.forPrincipal(alice).get(backend, TOOLS)
  const shared = await catalog.forPrincipal(bob).get(backend, TOOLS)
  t.equal(shared.items[0].name, 'for-alice', 'public → one copy for everyone')
  t.equal(backend.calls.length, 3, 'fetched once')
  t.equal(catalog.forPrincipal(new Principal({ kind: 'anonymous' })), catalog, 'anonymous → the gateway\'s own view')
})
