// A legacy request as the routing core sees it (LEGACY-16): `_meta` built from the session.
import t from 'tap'
import { ROUTED_METHODS, buildSessionMeta, toValidRequest, withInputResponses, type SessionView } from '../../../../src/protocol/legacy/request.ts'

const PV = 'io.modelcontextprotocol/protocolVersion'
const CAPS = 'io.modelcontextprotocol/clientCapabilities'
const INFO = 'io.modelcontextprotocol/clientInfo'
const LEVEL = 'io.modelcontextprotocol/logLevel'
const SESSION: SessionView = { version: '2025-11-25', clientFlags: ['ef', 'r'], clientInfo: { name: 'c', version: '1' } }

t.test('buildSessionMeta', async (t) => {
  const base = { [PV]: '2025-11-25', [CAPS]: { roots: {}, elicitation: { form: {} } }, [INFO]: { name: 'c', version: '1' } }
  const cases: Array<[string, SessionView, Record<string, unknown> | undefined, Record<string, unknown>]> = [
    ['no params → the session keys', SESSION, undefined, base],
    ['progressToken kept', SESSION, { _meta: { progressToken: 7 } }, { ...base, progressToken: 7 }],
    ['unknown keys kept (META-9)', SESSION, { _meta: { 'x.y/z': 1 } }, { ...base, 'x.y/z': 1 }],
    ['session log level → logLevel', { ...SESSION, logLevel: 'info' }, {}, { ...base, [LEVEL]: 'info' }],
    ['client-sent logLevel ignored', SESSION, { _meta: { [LEVEL]: 'debug' } }, base],
    ['client-sent capabilities replaced', SESSION, { _meta: { [CAPS]: { sampling: {} } } }, base],
  ]
  for (const [name, session, params, expected] of cases) t.same(buildSessionMeta(session, params), expected, name)
})

t.test('toValidRequest', async (t) => {
  const valid = toValidRequest(SESSION, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { a: 1 }, _meta: { progressToken: 'p' } } })
  t.ok(valid, 'tools/call → routed')
  t.match(valid, {
    request: { id: 3, method: 'tools/call', params: { name: 'echo', _meta: { progressToken: 'p', [PV]: '2025-11-25' } } },
    params: { name: 'echo', arguments: { a: 1 } },
    version: '2025-11-25', spec: { mrtr: true }, legacy: true, logLevel: undefined,
  })
  t.equal(valid!.paramHeaders.size, 0, 'no mirrored headers')
  t.equal(valid!.meta, valid!.params._meta, 'meta is the params _meta')
  for (const method of ['ping', 'initialize', 'logging/setLevel', 'resources/subscribe', 'server/discover', 'subscriptions/listen', 'tasks/list', 'nope']) {
    t.equal(toValidRequest(SESSION, { jsonrpc: '2.0', id: 1, method }), undefined, `${method} → not routed`)
  }
  t.equal(ROUTED_METHODS.size, 8)
})

t.test('withInputResponses (MRTR-5)', async (t) => {
  const valid = toValidRequest(SESSION, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'ask' } })!
  const first = withInputResponses(valid, { k1: { action: 'accept' } }, 'state-1')
  t.match(first.params, { name: 'ask', inputResponses: { k1: { action: 'accept' } }, requestState: 'state-1' })
  t.equal(first.request.params, first.params, 'request carries the same params')
  const second = withInputResponses(first, { k2: { roots: [] } }, undefined)
  t.same(Object.keys(second.params).sort(), ['_meta', 'inputResponses', 'name'], 'no requestState when none was issued; earlier answers replaced')
  t.same(second.params.inputResponses, { k2: { roots: [] } })
})
