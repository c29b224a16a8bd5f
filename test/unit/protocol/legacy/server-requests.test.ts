// input_required ↔ server-initiated requests (LEGACY-16, MRTR-3/5, LEGACY-7).
import t from 'tap'
import { readClientResponse, readInputRound, toServerRequests } from '../../../../src/protocol/legacy/server-requests.ts'

t.test('readInputRound', async (t) => {
  const cases: Array<[string, Record<string, unknown>, unknown]> = [
    ['complete → undefined', { resultType: 'complete', content: [] }, undefined],
    ['no resultType → undefined', { content: [] }, undefined],
    ['requests and state', { resultType: 'input_required', inputRequests: { a: { method: 'roots/list' } }, requestState: 's' }, { inputRequests: { a: { method: 'roots/list' } }, requestState: 's' }],
    ['state only (MRTR-6)', { resultType: 'input_required', requestState: 's' }, { inputRequests: {}, requestState: 's' }],
    ['requests only', { resultType: 'input_required', inputRequests: { a: { method: 'roots/list' } } }, { inputRequests: { a: { method: 'roots/list' } }, requestState: undefined }],
  ]
  for (const [name, result, expected] of cases) t.same(readInputRound(result), expected, name)
})

t.test('toServerRequests → gateway ids, params only when given', async (t) => {
  let n = 0
  const requests = toServerRequests({
    k1: { method: 'elicitation/create', params: { message: 'Name?' } },
    k2: { method: 'roots/list' },
    bad: { params: {} },
    worse: 'x',
  }, () => `gw-${++n}`)
  t.same(requests, [
    { key: 'k1', message: { jsonrpc: '2.0', id: 'gw-1', method: 'elicitation/create', params: { message: 'Name?' } } },
    { key: 'k2', message: { jsonrpc: '2.0', id: 'gw-2', method: 'roots/list' } },
  ])
})

t.test('readClientResponse', async (t) => {
  const cases: Array<[string, unknown, unknown]> = [
    ['result', { jsonrpc: '2.0', id: 'gw-1', result: { action: 'accept' } }, { id: 'gw-1', answer: { ok: true, result: { action: 'accept' } } }],
    ['error', { jsonrpc: '2.0', id: 'gw-1', error: { code: -32601, message: 'no' } }, { id: 'gw-1', answer: { ok: false, error: { code: -32601, message: 'no', data: undefined } } }],
    ['numeric id', { jsonrpc: '2.0', id: 4, result: {} }, { id: 4, answer: { ok: true, result: {} } }],
    ['null id', { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'x' } }, undefined],
    ['result not an object', { jsonrpc: '2.0', id: 'a', result: 3 }, undefined],
    ['error without message', { jsonrpc: '2.0', id: 'a', error: { code: 1 } }, undefined],
  ]
  for (const [name, body, expected] of cases) t.same(readClientResponse(body), expected, name)
})
