// InFlight: the requests being answered, in arrival order; a shutdown cuts those still there.
import t from 'tap'
import { InFlight, type InFlightRequest } from '../../../src/lifecycle/in-flight.ts'

function request(reqId: string, cuts: string[]): InFlightRequest {
  return { summary: { reqId }, cut: (reason) => cuts.push(`${reqId}: ${reason}`) }
}

t.test('entries leave from anywhere in the list; the rest are cut oldest first', async (t) => {
  const cuts: string[] = []
  const inFlight = new InFlight()
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((id) => inFlight.add(request(id, cuts)))
  t.equal(inFlight.size, 4)
  inFlight.delete(b) // middle
  inFlight.delete(d) // tail
  inFlight.delete(a) // head
  t.equal(inFlight.size, 1, 'only c is left')
  inFlight.add(request('e', cuts))
  t.same(inFlight.cutAll('stop'), [{ reqId: 'c' }, { reqId: 'e' }], 'what was cut, oldest first')
  t.same(cuts, ['c: stop', 'e: stop'], 'each cut once, with the reason')
  t.equal(inFlight.size, 0)
  inFlight.delete(c)
  t.equal(inFlight.size, 0, 'a request cut already is gone: deleting it again changes nothing')
})

t.test('a request deleted twice is counted once', async (t) => {
  const inFlight = new InFlight()
  const a = inFlight.add(request('a', []))
  inFlight.add(request('b', []))
  inFlight.delete(a)
  inFlight.delete(a)
  t.equal(inFlight.size, 1)
  t.same(inFlight.cutAll('stop'), [{ reqId: 'b' }], 'b is still there')
})
