// JSON-RPC classification (HTTP-4, RPC-1, RPC-3): one request or notification per body.
import t from 'tap'
import { classifyMessage, isErrorResponse, isJsonObject, isJsonRpcId, type Classified } from '../../../src/protocol/jsonrpc.ts'

const REQUEST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }

t.test('classifyMessage', async (t) => {
  const cases: Array<[string, unknown, { kind: Classified['kind']; id?: unknown; reason?: RegExp }]> = [
    ['request with integer id', REQUEST, { kind: 'request' }],
    ['request with string id, no params', { jsonrpc: '2.0', id: 'a', method: 'x' }, { kind: 'request' }],
    ['request with id 0', { jsonrpc: '2.0', id: 0, method: 'x' }, { kind: 'request' }],
    ['request with negative id', { jsonrpc: '2.0', id: -3, method: 'x' }, { kind: 'request' }],
    ['notification (no id)', { jsonrpc: '2.0', method: 'notifications/cancelled' }, { kind: 'notification' }],
    ['result response', { jsonrpc: '2.0', id: 4, result: {} }, { kind: 'response', id: 4 }],
    ['error response', { jsonrpc: '2.0', id: 'e', error: { code: 1, message: 'x' } }, { kind: 'response', id: 'e' }],
    ['error response with id null', { jsonrpc: '2.0', id: null, error: { code: 1, message: 'x' } }, { kind: 'response', id: undefined }],
    ['batch array', [REQUEST], { kind: 'invalid', id: undefined, reason: /batch/ }],
    ['empty array', [], { kind: 'invalid', id: undefined, reason: /batch/ }],
    ['string', 'tools/list', { kind: 'invalid', id: undefined, reason: /not a JSON object/ }],
    ['null', null, { kind: 'invalid', id: undefined, reason: /not a JSON object/ }],
    ['number', 42, { kind: 'invalid', id: undefined }],
    ['no jsonrpc member', { id: 1, method: 'x' }, { kind: 'invalid', id: 1, reason: /jsonrpc/ }],
    ['jsonrpc "1.0"', { jsonrpc: '1.0', id: 2, method: 'x' }, { kind: 'invalid', id: 2, reason: /jsonrpc/ }],
    ['jsonrpc 2 (number)', { jsonrpc: 2, id: 2, method: 'x' }, { kind: 'invalid', id: 2 }],
    ['params an array', { jsonrpc: '2.0', id: 3, method: 'x', params: [1] }, { kind: 'invalid', id: 3, reason: /params/ }],
    ['params null', { jsonrpc: '2.0', id: 3, method: 'x', params: null }, { kind: 'invalid', id: 3, reason: /params/ }],
    ['params a string', { jsonrpc: '2.0', id: 3, method: 'x', params: 'p' }, { kind: 'invalid', id: 3 }],
    ['method a number', { jsonrpc: '2.0', id: 5, method: 7 }, { kind: 'invalid', id: 5, reason: /method/ }],
    ['neither method nor result', { jsonrpc: '2.0', id: 5 }, { kind: 'invalid', id: 5, reason: /method/ }],
    ['id null on a request', { jsonrpc: '2.0', id: null, method: 'x' }, { kind: 'invalid', id: undefined, reason: /id must be/ }],
    ['id fractional', { jsonrpc: '2.0', id: 1.5, method: 'x' }, { kind: 'invalid', id: undefined, reason: /id must be/ }],
    ['id boolean', { jsonrpc: '2.0', id: true, method: 'x' }, { kind: 'invalid', id: undefined }],
    ['id object', { jsonrpc: '2.0', id: {}, method: 'x' }, { kind: 'invalid', id: undefined }],
  ]
  for (const [name, body, expected] of cases) {
    const { reason, ...shape } = expected
    const result = classifyMessage(body)
    t.match(result, shape, `${name} → ${expected.kind}`)
    if ('id' in shape) t.equal((result as { id?: unknown }).id, shape.id, `${name} → id ${String(shape.id)}`)
    if (reason) t.match((result as { reason: string }).reason, reason, `${name} → reason ${reason.source}`)
  }
})

t.test('classifyMessage keeps the message itself for requests and notifications', async (t) => {
  const result = classifyMessage(REQUEST)
  t.equal(result.kind === 'request' && result.message, REQUEST, 'request → same object')
})

t.test('isJsonRpcId', async (t) => {
  const cases: Array<[unknown, boolean]> = [['a', true], ['', true], [0, true], [-1, true], [1.5, false], [NaN, false], [null, false], [undefined, false], [true, false], [{}, false]]
  for (const [value, expected] of cases) t.equal(isJsonRpcId(value), expected, `${JSON.stringify(value) ?? 'undefined'} → ${expected}`)
})

t.test('isJsonObject', async (t) => {
  const cases: Array<[unknown, boolean]> = [[{}, true], [{ a: 1 }, true], [[], false], [null, false], ['x', false], [1, false]]
  for (const [value, expected] of cases) t.equal(isJsonObject(value), expected, `${JSON.stringify(value)} → ${expected}`)
})

t.test('isErrorResponse', async (t) => {
  t.equal(isErrorResponse({ jsonrpc: '2.0', id: 1, error: { code: -1, message: 'm' } }), true, 'error member → true')
  t.equal(isErrorResponse({ jsonrpc: '2.0', id: 1, result: {} }), false, 'result member → false')
})
