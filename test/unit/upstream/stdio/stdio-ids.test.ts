import t from 'tap'
import { createIdAllocator, restoreProgressToken, rewriteProgressToken } from '../../../../src/upstream/stdio/stdio-ids.ts'

t.test('id allocator → unique ids and tokens, prefixed', async (t) => {
  const ids = createIdAllocator('gw-test')
  t.same([ids.requestId(), ids.requestId(), ids.progressToken()], ['gw-test-1', 'gw-test-2', 'gw-test-p1'])
  const a = createIdAllocator()
  const b = createIdAllocator()
  t.not(a.requestId(), b.requestId(), 'two allocators never share ids')
  t.match(a.requestId(), /^gw-[0-9a-f]{8}-2$/)
})

const rewrites = [
  { name: 'no _meta → unchanged, no token', params: { name: 'x' }, token: undefined, original: undefined },
  { name: '_meta without progressToken → unchanged', params: { _meta: { a: 1 } }, token: undefined, original: undefined },
  { name: 'string token → replaced, original kept', params: { _meta: { progressToken: 'abc', a: 1 } }, token: 'T', original: 'abc' },
  { name: 'integer token → replaced, original kept', params: { _meta: { progressToken: 7 } }, token: 'T', original: 7 },
  { name: 'fractional token → not a token, unchanged', params: { _meta: { progressToken: 1.5 } }, token: undefined, original: undefined },
  { name: 'null token → not a token, unchanged', params: { _meta: { progressToken: null } }, token: undefined, original: undefined },
]

t.test('rewriteProgressToken (PROG-7)', async (t) => {
  for (const entry of rewrites) {
    const before = structuredClone(entry.params)
    const result = rewriteProgressToken(entry.params, () => 'T')
    t.equal(result.token, entry.token, `${entry.name} (token)`)
    t.equal(result.original, entry.original, `${entry.name} (original)`)
    t.same(entry.params, before, `${entry.name} (caller's params untouched)`)
    if (entry.token === undefined) {
      t.equal(result.params, entry.params, `${entry.name} (same object)`)
    } else {
      t.same(result.params._meta, { ...(entry.params._meta as object), progressToken: 'T' }, `${entry.name} (rest of _meta kept)`)
    }
  }
})

t.test('restoreProgressToken → the caller\'s token, same JSON type', async (t) => {
  t.same(restoreProgressToken({ progressToken: 'gw-p1', progress: 1 }, 7), { progressToken: 7, progress: 1 })
  t.same(restoreProgressToken({ progressToken: 'gw-p1', progress: 1 }, '7'), { progressToken: '7', progress: 1 })
})
