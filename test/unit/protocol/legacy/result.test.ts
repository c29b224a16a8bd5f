// Results, errors and notifications in 2025-11-25 form (LEGACY-16).
import t from 'tap'
import { toLegacyError, toLegacyNotification, toLegacyResult } from '../../../../src/protocol/legacy/result.ts'

t.test('toLegacyResult drops resultType only', async (t) => {
  const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
    [{ resultType: 'complete', content: [] }, { content: [] }],
    [{ tools: [], ttlMs: 0, cacheScope: 'private', resultType: 'complete', _meta: { a: 1 } }, { tools: [], ttlMs: 0, cacheScope: 'private', _meta: { a: 1 } }],
    [{}, {}],
  ]
  for (const [input, expected] of cases) t.same(toLegacyResult(input), expected, `${JSON.stringify(input)} → ${JSON.stringify(expected)}`)
})

t.test('toLegacyError: resource not found → -32002', async (t) => {
  const notFound = { code: -32602, message: 'Resource not found: x://y', data: { uri: 'x://y' } }
  const cases: Array<[string, string, Record<string, unknown>, number]> = [
    ['resources/read, -32602 with data.uri → -32002', 'resources/read', notFound, -32002],
    ['resources/subscribe, -32602 with data.uri → -32002', 'resources/subscribe', notFound, -32002],
    ['resources/read, -32602 without data.uri → unchanged', 'resources/read', { code: -32602, message: 'Invalid params' }, -32602],
    ['tools/call, -32602 with data.uri → unchanged', 'tools/call', notFound, -32602],
    ['resources/read, -32603 → unchanged', 'resources/read', { code: -32603, message: 'x', data: { uri: 'x' } }, -32603],
  ]
  for (const [name, method, error, code] of cases) t.equal(toLegacyError(method, error as never).code, code, name)
  t.same(toLegacyError('resources/read', notFound), { ...notFound, code: -32002 }, 'message and data kept')
})

t.test('toLegacyNotification drops the subscription id', async (t) => {
  const SUB = 'io.modelcontextprotocol/subscriptionId'
  const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
    [{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' }],
    [{ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUB]: 'l1' } } }, { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: {} }],
    [{ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'a://b', _meta: { [SUB]: 1, x: 2 } } }, { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'a://b', _meta: { x: 2 } } }],
  ]
  for (const [input, expected] of cases) t.same(toLegacyNotification(input as never), expected, JSON.stringify(input))
})
