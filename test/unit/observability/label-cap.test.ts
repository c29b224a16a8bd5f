// One bounding rule for label values: own label until `limit` distinct (scope, value) pairs, then the
// fallback for new ones; a pair seen before keeps its label after the limit.
import t from 'tap'
import { LabelCap } from '../../../src/observability/label-cap.ts'

t.test('pairs counted across scopes; known pairs keep their label past the limit', async (t) => {
  const cap = new LabelCap(3)
  t.equal(cap.label('echo', 'a'), 'echo')
  t.equal(cap.label('echo', 'b'), 'echo', 'the same value under another scope is another pair')
  t.equal(cap.label('add'), 'add', 'no scope')
  t.equal(cap.label('sum', 'a'), 'other', 'a fourth pair → the fallback')
  t.equal(cap.label('echo', 'a'), 'echo', 'a pair seen before keeps its label')
  t.equal(cap.label('add'), 'add')
  t.equal(cap.label('add', 'a'), 'other')
})

t.test('the fallback is the caller\'s', async (t) => {
  const cap = new LabelCap(0, '_OTHER')
  t.equal(cap.label('-32602'), '_OTHER')
})
