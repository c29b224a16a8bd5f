// Result stamping toward modern clients (RPC-4/6, META-5, CACHE-1..4, CACHE-12).
import t from 'tap'
import { CACHE_SCOPE, RESULT_TYPE, isUnknownResultType, mergeCacheHints, readCacheHints, stampCacheHints, stampResult, type CacheHints } from '../../../src/protocol/result.ts'

const SERVER_INFO = { name: 'mcp-gateway', version: '0.1.0' }
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo'

t.test('readCacheHints', async (t) => {
  const cases: Array<[Record<string, unknown>, CacheHints]> = [
    [{}, { ttlMs: 0, cacheScope: 'private' }],
    [{ ttlMs: 5_000, cacheScope: 'public' }, { ttlMs: 5_000, cacheScope: 'public' }],
    [{ ttlMs: 1.9, cacheScope: 'public' }, { ttlMs: 1, cacheScope: 'public' }],
    [{ ttlMs: -10, cacheScope: 'public' }, { ttlMs: 0, cacheScope: 'public' }],
    [{ ttlMs: Number.NaN }, { ttlMs: 0, cacheScope: 'private' }],
    [{ ttlMs: Number.POSITIVE_INFINITY }, { ttlMs: 0, cacheScope: 'private' }],
    [{ ttlMs: '5000' }, { ttlMs: 0, cacheScope: 'private' }],
    [{ ttlMs: 10, cacheScope: 'PUBLIC' }, { ttlMs: 10, cacheScope: 'private' }],
    [{ ttlMs: 10, cacheScope: 'private' }, { ttlMs: 10, cacheScope: 'private' }],
  ]
  for (const [result, expected] of cases) t.same(readCacheHints(result), expected, `${JSON.stringify(result)} → ${JSON.stringify(expected)}`)
})

t.test('mergeCacheHints (shortest ttl, private wins)', async (t) => {
  const fallback: CacheHints = { ttlMs: 0, cacheScope: 'private' }
  const cases: Array<[CacheHints[], CacheHints]> = [
    [[], fallback],
    [[{ ttlMs: 10, cacheScope: 'public' }], { ttlMs: 10, cacheScope: 'public' }],
    [[{ ttlMs: 10, cacheScope: 'public' }, { ttlMs: 5, cacheScope: 'public' }], { ttlMs: 5, cacheScope: 'public' }],
    [[{ ttlMs: 10, cacheScope: 'public' }, { ttlMs: 20, cacheScope: 'private' }], { ttlMs: 10, cacheScope: 'private' }],
    [[{ ttlMs: 0, cacheScope: 'public' }, { ttlMs: 20, cacheScope: 'public' }], { ttlMs: 0, cacheScope: 'public' }],
  ]
  for (const [parts, expected] of cases) t.same(mergeCacheHints(parts, fallback), expected, `${JSON.stringify(parts)} → ${JSON.stringify(expected)}`)
})

t.test('stampResult', async (t) => {
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ['no resultType, no _meta', { content: [] }, { content: [], resultType: 'complete', _meta: { [SERVER_INFO_KEY]: SERVER_INFO } }],
    ['input_required kept', { resultType: 'input_required' }, { resultType: 'input_required', _meta: { [SERVER_INFO_KEY]: SERVER_INFO } }],
    ['backend serverInfo replaced, other _meta kept', { _meta: { [SERVER_INFO_KEY]: { name: 'alpha', version: '1' }, 'x.y/z': 1 } },
      { resultType: 'complete', _meta: { [SERVER_INFO_KEY]: SERVER_INFO, 'x.y/z': 1 } }],
    ['_meta not an object → replaced', { _meta: 'junk' }, { resultType: 'complete', _meta: { [SERVER_INFO_KEY]: SERVER_INFO } }],
    ['resultType not a string → complete', { resultType: 7 }, { resultType: 'complete', _meta: { [SERVER_INFO_KEY]: SERVER_INFO } }],
  ]
  for (const [name, input, expected] of cases) t.same(stampResult(input, SERVER_INFO), expected, `${name} → ${JSON.stringify(expected)}`)
  const input = { a: 1 }
  stampResult(input, SERVER_INFO)
  t.same(input, { a: 1 }, 'the input object → untouched')
})

t.test('isUnknownResultType (RPC-5: only complete and input_required; absent or not a string defaults, RPC-6)', async (t) => {
  const cases: Array<[string, unknown, boolean]> = [
    ['absent', undefined, false],
    ['"complete"', 'complete', false],
    ['"input_required"', 'input_required', false],
    ['"task" (an extension the gateway does not advertise)', 'task', true],
    ['"Complete" (case matters)', 'Complete', true],
    ['""', '', true],
    ['a number', 42, false],
  ]
  for (const [name, value, unknown] of cases) t.equal(isUnknownResultType(value), unknown, `${name} → ${unknown ? 'unknown' : 'accepted'}`)
})

t.test('stampCacheHints', async (t) => {
  const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
    [{ resultType: 'complete' }, { resultType: 'complete', ttlMs: 0, cacheScope: 'private' }],
    [{ resultType: 'complete', ttlMs: 99.5, cacheScope: 'public' }, { resultType: 'complete', ttlMs: 99, cacheScope: 'public' }],
    [{ resultType: 'input_required', inputRequests: {} }, { resultType: 'input_required', inputRequests: {} }],
  ]
  for (const [input, expected] of cases) t.same(stampCacheHints(input), expected, `${JSON.stringify(input)} → ${JSON.stringify(expected)}`)
})

t.test('constants', async (t) => {
  t.same(RESULT_TYPE, { complete: 'complete', inputRequired: 'input_required' }, 'RESULT_TYPE → the two spec values')
  t.same(CACHE_SCOPE, { public: 'public', private: 'private' }, 'CACHE_SCOPE → the two spec values')
})
