// HDR-12 (header-retry.ts): a backend's -32020 to a tools/call → the tool looked up again and the
// call sent once more only when the current definition calls for other headers. The backend is an
// in-memory fixture (test/helpers/fake-backend.ts) and the catalog's clock is the test's: what is
// tested is the decision (resend or pass the refusal on) and when the list is refetched.
import t from 'tap'
import type { JsonObject } from '../../../src/protocol/jsonrpc.ts'
import type { ValidRequest } from '../../../src/protocol/validate.ts'
import { Catalog } from '../../../src/routing/catalog.ts'
import type { Forward } from '../../../src/routing/call-context.ts'
import { isHeaderRefusal, retryHeaderRefusal } from '../../../src/routing/header-retry.ts'
import { listKind } from '../../../src/routing/list-kinds.ts'
import { ToolHeaders } from '../../../src/routing/tool-headers.ts'
import { UpstreamParamsBuilder } from '../../../src/routing/upstream-params.ts'
import type { UpstreamReply } from '../../../src/upstream/backend.ts'
import { createFakeBackend, entryOf } from '../../helpers/fake-backend.ts'

const MIN_REFRESH_MS = 5_000
const REFUSED: UpstreamReply = { ok: false, error: { code: -32020, message: 'Mcp-Param-Region missing' } }
const PLAIN = { name: 'weather', inputSchema: { type: 'object', properties: { region: { type: 'string' } } } }
const ANNOTATED = { name: 'weather', inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } } }

const valid = (method = 'tools/call'): ValidRequest => ({
  request: { jsonrpc: '2.0', id: 1, method }, params: { name: 'weather', arguments: { region: 'eu' } }, meta: {}, version: '2026-07-28',
  spec: {} as ValidRequest['spec'], logLevel: undefined, paramHeaders: new Map(),
})

// A backend listing `tools` (mutable), its tools list cached once at the test's clock; every
// resend recorded with its headers and answered "ok".
async function setup(tools: JsonObject[]) {
  const clock = { now: 1_000_000 }
  const backend = createFakeBackend('a', { lists: { tools } })
  const catalog = new Catalog(new UpstreamParamsBuilder({ name: 'gateway', version: '0.0.0' }), () => clock.now)
  catalog.minRefreshMs = MIN_REFRESH_MS
  await catalog.get(backend, listKind('tools'))
  const resent: Array<Record<string, string>> = []
  const deps = { catalog, toolHeaders: new ToolHeaders(), resend: async (headers: Record<string, string>): Promise<UpstreamReply> => (resent.push(headers), { ok: true, result: { content: [] } }) }
  const forward: Forward = { entry: entryOf(backend), params: { name: 'weather' } }
  const fetches = () => backend.calls.filter((c) => c.method === 'tools/list').length
  return { clock, tools, deps, forward, resent, fetches }
}

t.test('isHeaderRefusal: -32020 to a tools/call only', async (t) => {
  t.ok(isHeaderRefusal(valid(), REFUSED))
  t.notOk(isHeaderRefusal(valid('prompts/get'), REFUSED), 'prompts/get → no')
  t.notOk(isHeaderRefusal(valid(), { ok: false, error: { code: -32602, message: 'x' } }), 'another code → no')
  t.notOk(isHeaderRefusal(valid(), { ok: true, result: {} }), 'a result → no')
})

t.test('the cached list already calls for other headers → sent again with them, no refetch', async (t) => {
  const s = await setup([ANNOTATED])
  const reply = await retryHeaderRefusal(s.deps, valid(), s.forward, REFUSED)
  t.ok(reply.ok, 'the resend\'s reply')
  t.same(s.resent, [{ 'mcp-param-region': 'eu' }])
  t.equal(s.fetches(), 1, 'no refetch')
})

t.test('the cached list agrees with what was sent → refetched past minRefreshMs, sent again with the new headers', async (t) => {
  const s = await setup([PLAIN])
  s.tools[0] = ANNOTATED
  t.same(await retryHeaderRefusal(s.deps, valid(), s.forward, REFUSED), REFUSED, 'list younger than minRefreshMs → the refusal passed on')
  t.equal(s.fetches(), 1, 'not refetched')
  s.clock.now += MIN_REFRESH_MS
  const reply = await retryHeaderRefusal(s.deps, valid(), s.forward, REFUSED)
  t.ok(reply.ok)
  t.same(s.resent, [{ 'mcp-param-region': 'eu' }])
  t.equal(s.fetches(), 2, 'refetched once')
})

t.test('the refetched list explains nothing → the refusal passed on, never sent again', async (t) => {
  const cases: Array<[string, JsonObject[]]> = [
    ['same definition', [PLAIN]],
    ['tool gone', [{ name: 'other' }]],
    ['new definition invalid (HDR-11)', [{ name: 'weather', inputSchema: { type: 'object', properties: { region: { type: 'number', 'x-mcp-header': 'Region' } } } }]],
  ]
  for (const [name, after] of cases) {
    const s = await setup([PLAIN])
    s.tools.splice(0, 1, ...after)
    s.clock.now += MIN_REFRESH_MS
    t.same(await retryHeaderRefusal(s.deps, valid(), s.forward, REFUSED), REFUSED, name)
    t.same(s.resent, [], `${name}: not sent again`)
  }
})
