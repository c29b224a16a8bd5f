// A bridge handle sealed in requestState names the replica holding the call (README "Running N
// replicas"), so a retry landing elsewhere can be relayed to it; one replica alone names none.
import t from 'tap'
import { openRequestState, sealBridgeState, type StateBinding } from '../../../src/routing/mrtr.ts'
import { Sealer } from '../../../src/routing/seal.ts'

const sealer = new Sealer('unit-secret-unit-secret-unit-secret')
const binding: StateBinding = { method: 'tools/call', name: 'lg__ask', backend: 'lg', principal: 'anonymous' }

t.test('bridge handle → sealed → opened with its holder, or none', async (t) => {
  const cases: Array<[string, { id: string; round: number; holder?: string }]> = [
    ['several replicas: the holder kept', { id: 'call-1', round: 2, holder: 'replica-a' }],
    ['one replica: no holder', { id: 'call-2', round: 1 }],
  ]
  for (const [name, handle] of cases) {
    const opened = openRequestState(sealer, binding, sealBridgeState({ sealer, binding, ttlMs: 60_000 }, handle))
    t.same(opened.kind === 'bridge' ? opened.handle : undefined, handle, name)
  }
})
