// ERR-5 (url-elicitation.ts): a legacy backend's -32042 as an input round, or not. Table-driven; the
// round's state is opened with the real sealer to show it is the gateway's own `again` state.
import t from 'tap'
import type { JsonObject, JsonRpcErrorObject } from '../../../src/protocol/jsonrpc.ts'
import { openRequestState, type StateBinding } from '../../../src/routing/mrtr.ts'
import { Sealer } from '../../../src/routing/seal.ts'
import { urlElicitationRound } from '../../../src/routing/url-elicitation.ts'

const sealer = new Sealer('url-elicitation-test-secret-url-elicitation-test-secret')
const binding: StateBinding = { method: 'tools/call', name: 'lg__needs-url', backend: 'lg', principal: 'anonymous' }
const seal = { sealer, binding, ttlMs: 60_000 }
const URL_CAPABLE: JsonObject = { elicitation: { url: {} } }
const elicitation = (extra: JsonObject = {}): JsonObject => ({ mode: 'url', elicitationId: 'e1', url: 'https://example.invalid/c', message: 'Connect', ...extra })
const refused = (elicitations: unknown, code = -32042): JsonRpcErrorObject => ({ code, message: 'URL elicitation required', data: { elicitations } })

t.test('no round: another code, malformed elicitations, or a client without URL elicitation', async (t) => {
  const cases: Array<[string, JsonRpcErrorObject, JsonObject]> = [
    ['-32603', refused([elicitation()], -32603), URL_CAPABLE],
    ['no data', { code: -32042, message: 'x' }, URL_CAPABLE],
    ['elicitations empty', refused([]), URL_CAPABLE],
    ['elicitations not an array', refused({}), URL_CAPABLE],
    ['form mode', refused([elicitation({ mode: 'form' })]), URL_CAPABLE],
    ['url missing', refused([elicitation({ url: 42 })]), URL_CAPABLE],
    ['message missing', refused([{ mode: 'url', url: 'https://example.invalid/c' }]), URL_CAPABLE],
    ['one good, one bad', refused([elicitation(), 'x']), URL_CAPABLE],
    ['client: form elicitation only', refused([elicitation()]), { elicitation: {} }],
    ['client: no elicitation', refused([elicitation()]), {}],
  ]
  for (const [name, error, capabilities] of cases) t.equal(urlElicitationRound(error, capabilities, seal), undefined, name)
})

t.test('a round: each URL elicitation under its key, 2026-07-28 members only; the state says "send again"', async (t) => {
  const round = urlElicitationRound(refused([elicitation(), elicitation({ url: 'https://example.invalid/d', message: 'Also' })]), URL_CAPABLE, seal)
  t.match(round, {
    resultType: 'input_required',
    inputRequests: {
      'url-1': { method: 'elicitation/create', params: { mode: 'url', url: 'https://example.invalid/c', message: 'Connect' } },
      'url-2': { method: 'elicitation/create', params: { mode: 'url', url: 'https://example.invalid/d', message: 'Also' } },
    },
  })
  t.notOk('elicitationId' in ((round!.inputRequests as JsonObject)['url-1'] as { params: JsonObject }).params, 'elicitationId dropped')
  t.match(openRequestState(sealer, binding, round!.requestState), { kind: 'again', use: { tokenId: String } })
  t.throws(() => openRequestState(sealer, { ...binding, principal: 'someone-else' }, round!.requestState), { code: 'MCP_GATEWAY_STATE_INVALID' }, 'bound to the caller')
})
