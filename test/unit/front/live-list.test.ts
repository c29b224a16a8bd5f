// LiveList: members come and go in any order; a node that left keeps no links.
import t from 'tap'
import { LiveList } from '../../../src/front/live-list.ts'

function values(list: LiveList<string>): string[] {
  const seen: string[] = []
  list.forEach((node) => seen.push(node.value))
  return seen
}

t.test('push appends; remove from the head, the middle and the tail', async (t) => {
  const list = new LiveList<string>()
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((value) => list.push(value))
  t.same(values(list), ['a', 'b', 'c', 'd'])
  list.remove(b)
  t.same(values(list), ['a', 'c', 'd'])
  list.remove(d)
  list.remove(a)
  t.same(values(list), ['c'])
  t.equal(list.size, 1)
  t.equal(c.prev, undefined, 'the last one left has no neighbours')
  t.equal(c.next, undefined)
  list.push('e')
  t.same(values(list), ['c', 'e'], 'the tail moved back to c, so e follows it')
})

t.test('a removed node keeps no links; removing it again changes nothing', async (t) => {
  const list = new LiveList<string>()
  const [a, b, c] = ['a', 'b', 'c'].map((value) => list.push(value))
  list.remove(b)
  t.equal(b.prev, undefined)
  t.equal(b.next, undefined)
  t.equal(a.next, c, 'its neighbours are linked to each other')
  t.equal(c.prev, a)
  list.remove(b)
  t.equal(list.size, 2, 'counted once')
  t.same(values(list), ['a', 'c'])
})

t.test('forEach lets the visitor remove the node it is given', async (t) => {
  const list = new LiveList<string>()
  for (const value of ['a', 'b', 'c', 'd']) list.push(value)
  const visited: string[] = []
  list.forEach((node) => {
    visited.push(node.value)
    if (node.value === 'b' || node.value === 'd') list.remove(node)
  })
  t.same(visited, ['a', 'b', 'c', 'd'], 'every node visited once')
  t.same(values(list), ['a', 'c'])
})

t.test('shift takes the oldest; a node taken by shift is no longer removable; clear empties', async (t) => {
  const list = new LiveList<string>()
  const a = list.push('a')
  list.push('b')
  list.push('c')
  t.equal(list.shift(), 'a')
  list.remove(a)
  t.equal(list.size, 2)
  list.clear()
  t.equal(list.size, 0)
  t.equal(list.shift(), undefined)
  t.same(values(list), [])
})
