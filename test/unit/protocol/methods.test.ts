// The modern method table (RPC-9, HDR-2, MRTR-1, PAGE-1, CACHE-1).
import t from 'tap'
import { MODERN_METHODS, getMethodSpec } from '../../../src/protocol/methods.ts'

t.test('getMethodSpec', async (t) => {
  const cases: Array<[string, { nameParam?: string; mrtr: boolean; paginated: boolean; cacheable: boolean } | undefined]> = [
    ['server/discover', { mrtr: false, paginated: false, cacheable: true }],
    ['tools/list', { mrtr: false, paginated: true, cacheable: true }],
    ['tools/call', { nameParam: 'name', mrtr: true, paginated: false, cacheable: false }],
    ['prompts/list', { mrtr: false, paginated: true, cacheable: true }],
    ['prompts/get', { nameParam: 'name', mrtr: true, paginated: false, cacheable: false }],
    ['resources/list', { mrtr: false, paginated: true, cacheable: true }],
    ['resources/templates/list', { mrtr: false, paginated: true, cacheable: true }],
    ['resources/read', { nameParam: 'uri', mrtr: true, paginated: false, cacheable: true }],
    ['completion/complete', { mrtr: false, paginated: false, cacheable: false }],
    ['subscriptions/listen', { mrtr: false, paginated: false, cacheable: false }],
    // Removed in 2026-07-28 (RPC-9) → not in the table → -32601.
    ['initialize', undefined],
    ['ping', undefined],
    ['logging/setLevel', undefined],
    ['resources/subscribe', undefined],
    ['resources/unsubscribe', undefined],
    ['tasks/get', undefined],
    ['Tools/List', undefined],
    ['', undefined],
  ]
  for (const [method, expected] of cases) {
    t.same(getMethodSpec(method), expected, `${JSON.stringify(method)} → ${expected ? JSON.stringify(expected) : 'unknown'}`)
  }
  t.equal(MODERN_METHODS.size, 10, 'exactly the ten modern client→server methods')
})
