// Owner lookup (resolve.ts): a candidate whose list cannot be fetched is passed over; with no other
// owner the lookup fails with that backend's failure (ERR-7), and only when every candidate list
// was read is it "unknown" (-32602, ERR-9/10). Backends are in-memory fixtures of the Backend
// interface (test/helpers/fake-backend.ts): what is tested is the decision, not a transport.
import t from 'tap'
import { GatewayError } from '../../../src/errors.ts'
import type { JsonObject } from '../../../src/protocol/jsonrpc.ts'
import { BackendSet, type BackendEntry } from '../../../src/routing/backend-set.ts'
import { Catalog } from '../../../src/routing/catalog.ts'
import { resolveName as resolveNow, resolveUri, type NameQuery, type ResolveDeps, type Target } from '../../../src/routing/resolve.ts'

// resolveName answers a cached name at once and the rest with a promise: one shape here.
const resolveName = async (deps: ResolveDeps, query: NameQuery): Promise<Target> => resolveNow(deps, query)
import { UpstreamParamsBuilder } from '../../../src/routing/upstream-params.ts'
import { BackendError, type UpstreamReply } from '../../../src/upstream/backend.ts'
import { createFakeBackend, entryOf, type FakeBackend, type FakeBackendOptions } from '../../helpers/fake-backend.ts'

type Failure = 'timeout' | 'rpc-error' | 'bug'

// A backend whose list requests fail: a transport timeout, a JSON-RPC error answer, or a plain Error.
function failing(name: string, how: Failure, options: FakeBackendOptions = {}): FakeBackend {
  const backend = createFakeBackend(name, options)
  backend.request = async (call): Promise<UpstreamReply> => {
    backend.calls.push(call)
    if (how === 'timeout') throw new BackendError(name, 'timeout', `${call.method} timed out`)
    if (how === 'bug') throw new TypeError('a bug')
    return { ok: false, error: { code: -32603, message: 'list unavailable' } }
  }
  return backend
}

const MIN_REFRESH_MS = 5_000

// `clock.now` is the catalog's time: tests move it instead of waiting.
function deps(...entries: BackendEntry[]): ResolveDeps & { clock: { now: number } } {
  const clock = { now: 1_000_000 }
  const catalog = new Catalog(new UpstreamParamsBuilder({ name: 'gateway', version: '0.0.0' }), () => clock.now)
  catalog.minRefreshMs = MIN_REFRESH_MS
  return { backends: new BackendSet(entries, '__'), catalog, clock }
}

function listFetches(backend: FakeBackend): number {
  return backend.calls.filter((call) => call.method === 'tools/list').length
}

// What a lookup settles to, for comparing: the owner's name, or the error's code/reason and backend.
async function outcome(lookup: Promise<Target | BackendEntry>): Promise<JsonObject> {
  try {
    const found = await lookup
    return { owner: 'entry' in found ? found.entry.backend.name : found.backend.name }
  } catch (err) {
    if (err instanceof BackendError) return { failure: err.reason, backend: err.backend }
    if (err instanceof GatewayError) return { code: err.code, data: err.data as JsonObject }
    return { thrown: (err as Error).name }
  }
}

const TOOL = { tools: [{ name: 'echo' }] }
const PROMPT = { prompts: [{ name: 'greet' }] }

t.test('resolveName (namespace "" on every backend, so each is a candidate)', async (t) => {
  const cases: Array<[string, () => BackendEntry[], 'tools' | 'prompts', string, JsonObject]> = [
    ['tool on the only backend', () => [entryOf(createFakeBackend('a', { lists: TOOL }))], 'tools', 'echo', { owner: 'a' }],
    ['first list times out, second has it', () => [entryOf(failing('slow', 'timeout')), entryOf(createFakeBackend('b', { lists: TOOL }))], 'tools', 'echo', { owner: 'b' }],
    ['first list times out, nobody has it', () => [entryOf(failing('slow', 'timeout')), entryOf(createFakeBackend('b', { lists: TOOL }))], 'tools', 'nope',
      { failure: 'timeout', backend: 'slow' }],
    ['list answered a JSON-RPC error', () => [entryOf(failing('odd', 'rpc-error'))], 'tools', 'echo', { failure: 'bad_reply', backend: 'odd' }],
    ['backend down', () => [entryOf(createFakeBackend('down', { up: false, lists: TOOL }))], 'tools', 'echo', { failure: 'unreachable', backend: 'down' }],
    ['two fail → the first is reported', () => [entryOf(failing('one', 'timeout')), entryOf(failing('two', 'rpc-error'))], 'tools', 'x',
      { failure: 'timeout', backend: 'one' }],
    ['every list read, none has it', () => [entryOf(createFakeBackend('a', { lists: TOOL })), entryOf(createFakeBackend('b', { lists: TOOL }))], 'tools', 'nope',
      { code: 'MCP_GATEWAY_TOOL_UNKNOWN' }],
    ['failing backend without the capability → not a candidate', () => [entryOf(failing('noprompts', 'rpc-error', { capabilities: { tools: {} } }))], 'prompts', 'greet',
      { code: 'MCP_GATEWAY_PROMPT_UNKNOWN' }],
    ['prompt list times out', () => [entryOf(failing('slow', 'timeout'))], 'prompts', 'greet', { failure: 'timeout', backend: 'slow' }],
    ['prompt found', () => [entryOf(createFakeBackend('p', { lists: PROMPT }))], 'prompts', 'greet', { owner: 'p' }],
  ]
  for (const [name, entries, kind, item, expected] of cases) {
    t.same(await outcome(resolveName(deps(...entries()), { kind, name: item })), expected, `${name} → ${JSON.stringify(expected)}`)
  }
})

t.test('resolveName: a bug in a backend (not a BackendError) → goes up unchanged', async (t) => {
  await t.rejects(resolveName(deps(entryOf(failing('buggy', 'bug'))), { kind: 'tools', name: 'echo' }), TypeError)
})

t.test('resolveName: an unknown name → refetched at most once per minRefreshMs, and a name that missed is remembered', async (t) => {
  const lists: Record<string, JsonObject[]> = { tools: [{ name: 'echo' }] }
  const backend = createFakeBackend('a', { lists })
  const d = deps(entryOf(backend))
  t.same(await outcome(resolveName(d, { kind: 'tools', name: 'echo' })), { owner: 'a' }, 'first lookup fetches')
  for (let i = 0; i < 50; i++) await resolveName(d, { kind: 'tools', name: `invented-${i}` }).catch(() => undefined)
  t.equal(listFetches(backend), 1, '50 invented names within minRefreshMs → no refetch')
  d.clock.now += MIN_REFRESH_MS
  lists.tools = [{ name: 'echo' }, { name: 'added' }]
  t.same(await outcome(resolveName(d, { kind: 'tools', name: 'added' })), { owner: 'a' }, 'past minRefreshMs, a new name → refetched and found (CACHE-9)')
  t.equal(listFetches(backend), 2)
  t.same(await outcome(resolveName(d, { kind: 'tools', name: 'nope' })), { code: 'MCP_GATEWAY_TOOL_UNKNOWN' }, 'a name missing right after → unknown, not refetched')
  d.clock.now += MIN_REFRESH_MS
  t.same(await outcome(resolveName(d, { kind: 'tools', name: 'nope' })), { code: 'MCP_GATEWAY_TOOL_UNKNOWN' }, 'the same name later → remembered as missing from this list')
  t.equal(listFetches(backend), 2, 'negative cache: no refetch for a name that already missed in this list')
  await Promise.all(Array.from({ length: 20 }, (_, i) => resolveName(d, { kind: 'tools', name: `burst-${i}` }).catch(() => undefined)))
  t.equal(listFetches(backend), 3, '20 new names at once, past minRefreshMs → one shared refetch')
})

t.test('resolveName: stale list without the name → refetched once (CACHE-9); a failed refetch is the failure', async (t) => {
  const backend = createFakeBackend('a', { lists: TOOL })
  const d = deps(entryOf(backend))
  t.same(await outcome(resolveName(d, { kind: 'tools', name: 'echo' })), { owner: 'a' }, 'cached')
  d.clock.now += MIN_REFRESH_MS
  backend.request = async () => {
    throw new BackendError('a', 'unreachable', 'connect ECONNREFUSED')
  }
  t.same(await outcome(resolveName(d, { kind: 'tools', name: 'echo' })), { owner: 'a' }, 'a cached name → found without asking')
  t.same(await outcome(resolveName(d, { kind: 'tools', name: 'new' })), { failure: 'unreachable', backend: 'a' }, 'an unknown name, refetch fails → the failure')
})

t.test('resolveName: a cached list answers without a fetch, in candidate order; a down first candidate is passed over', async (t) => {
  const a = createFakeBackend('a', { lists: TOOL })
  const b = createFakeBackend('b', { lists: TOOL })
  const d = deps(entryOf(a), entryOf(b))
  t.same(await outcome(resolveName(d, { kind: 'tools', name: 'echo' })), { owner: 'a' }, 'first lookup fetches a')
  t.same(await outcome(resolveName(d, { kind: 'tools', name: 'echo' })), { owner: 'a' }, 'the cached copy of a, the first candidate')
  t.equal(listFetches(a), 1, 'a fetched once')
  a.up = false
  t.same(await outcome(resolveName(d, { kind: 'tools', name: 'echo' })), { owner: 'b' }, 'a down → b, fetched then')
  t.same(await outcome(resolveName(d, { kind: 'tools', name: 'echo' })), { owner: 'b' }, 'b from its cached copy')
  t.equal(listFetches(b), 1)
  t.equal(listFetches(a), 1, 'a down: never asked')
})

t.test('resolveName: a name on a later backend answers at once when the earlier lists settle the miss (no refetch due)', async (t) => {
  const a = createFakeBackend('a', { lists: TOOL })
  const b = createFakeBackend('b', { lists: { tools: [{ name: 'other' }] } })
  const d = deps(entryOf(a), entryOf(b))
  t.same(await outcome(resolveName(d, { kind: 'tools', name: 'other' })), { owner: 'b' }, 'first lookup fetches both lists')
  const cached = resolveNow(d, { kind: 'tools', name: 'other' })
  t.notOk(cached instanceof Promise, 'within minRefreshMs: a lacks it, b has it → answered without waiting')
  t.equal((cached as Target).entry.backend.name, 'b')
  d.clock.now += MIN_REFRESH_MS
  t.same(await outcome(resolveName(d, { kind: 'tools', name: 'other' })), { owner: 'b' }, 'the name already missed in a → still b')
  t.equal(listFetches(a), 1, 'a miss remembered in a list is never a reason to refetch it (CACHE-9 negative cache)')
  const unknown = resolveNow(d, { kind: 'tools', name: 'nope' })
  t.ok(unknown instanceof Promise, 'no owner at all → the full path, which reports it')
  t.same(await outcome(Promise.resolve(unknown)), { code: 'MCP_GATEWAY_TOOL_UNKNOWN' })
})

t.test('resolveUri', async (t) => {
  const listed = { resources: [{ uri: 'file:///a' }] }
  const templated = { resourceTemplates: [{ uriTemplate: 'file:///t/{name}' }] }
  const cases: Array<[string, () => BackendEntry[], string, JsonObject]> = [
    ['listed', () => [entryOf(createFakeBackend('a', { lists: listed })), entryOf(createFakeBackend('b'))], 'file:///a', { owner: 'a' }],
    ['by template', () => [entryOf(createFakeBackend('a')), entryOf(createFakeBackend('b', { lists: templated }))], 'file:///t/x', { owner: 'b' }],
    ['first fails, second lists it', () => [entryOf(failing('slow', 'timeout')), entryOf(createFakeBackend('b', { lists: listed }))], 'file:///a', { owner: 'b' }],
    ['first fails, nobody has it', () => [entryOf(failing('slow', 'timeout')), entryOf(createFakeBackend('b', { lists: listed }))], 'file:///z',
      { failure: 'timeout', backend: 'slow' }],
    ['JSON-RPC error to resources/list', () => [entryOf(failing('odd', 'rpc-error')), entryOf(createFakeBackend('b'))], 'file:///z', { failure: 'bad_reply', backend: 'odd' }],
    ['a down backend, nobody else has it', () => [entryOf(createFakeBackend('down', { up: false })), entryOf(createFakeBackend('b')), entryOf(createFakeBackend('c'))],
      'file:///z', { failure: 'unreachable', backend: 'down' }],
    ['the only backend serving resources (G3)', () => [entryOf(createFakeBackend('only'))], 'file:///z', { owner: 'only' }],
    ['the only one serving resources, its lists failing', () => [entryOf(failing('only', 'timeout'))], 'file:///z', { owner: 'only' }],
    ['every list read, none has it', () => [entryOf(createFakeBackend('a', { lists: listed })), entryOf(createFakeBackend('b'))], 'file:///z',
      { code: 'MCP_GATEWAY_RESOURCE_UNKNOWN', data: { uri: 'file:///z' } }],
    ['failing backend without resources → not a candidate', () => [entryOf(failing('t', 'timeout', { capabilities: { tools: {} } })), entryOf(createFakeBackend('a')),
      entryOf(createFakeBackend('b'))], 'file:///z', { code: 'MCP_GATEWAY_RESOURCE_UNKNOWN', data: { uri: 'file:///z' } }],
  ]
  for (const [name, entries, uri, expected] of cases) t.same(await outcome(resolveUri(deps(...entries()), uri)), expected, `${name} → ${JSON.stringify(expected)}`)
})
