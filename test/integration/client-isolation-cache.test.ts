// Cache busting: calls with invented tool names must not make the gateway refetch (and re-parse) a
// backend's large tools/list per call, nor drop the shared cache the other clients use. Before the
// fix, 50 calls with invented names cost 50 fetches of a 5.3 MB list (1.8 s of gateway CPU); now an
// unknown name refetches at most once per limits.listRefreshMs and a name that missed is
// remembered. Attacker 127.0.0.2, victim 127.0.0.1, one gateway, test/fixtures/hostile-backend.ts.
import t from 'tap'
import { startFixture } from '../helpers/backend-process.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { createRawClient } from '../helpers/mcp-client.ts'

const HOSTILE = new URL('../fixtures/hostile-backend.ts', import.meta.url).pathname
// About 5.3 MB of tools/list.
const TOOLS = 20_000
const TOOL_BYTES = 265
const INVENTED = 50

const hostile = await startFixture(t, HOSTILE, ['--tools', String(TOOLS), '--tool-bytes', String(TOOL_BYTES)])
const gateway = await startGateway(t, { backends: [{ name: 'h', transport: 'http', url: hostile.url, namespace: 'h' }] })
const attacker = createRawClient(t, gateway.url, { localAddress: '127.0.0.2' })
const victim = createRawClient(t, gateway.url, { localAddress: '127.0.0.1' })

async function fetchesSoFar(): Promise<number> {
  const reply = await victim.rpc('tools/call', { name: 'h__stats', arguments: {} })
  return JSON.parse(reply.json.result.content[0].text).fetches
}

t.test(`${INVENTED} calls with invented tool names → unknown tool each, at most 3 fetches of the list in all`, async (t) => {
  const cpuBefore = process.cpuUsage()
  for (let i = 0; i < INVENTED; i++) {
    const reply = await attacker.rpc('tools/call', { name: `h__invented-${i}`, arguments: {} }, { id: `bust-${i}` })
    t.equal(reply.json?.error?.code, -32602, `bust-${i}: -32602 unknown tool`)
  }
  const cpu = process.cpuUsage(cpuBefore)
  const fetches = await fetchesSoFar()
  t.ok(fetches <= 3, `${fetches} fetch(es) of the ${TOOLS}-tool list for ${INVENTED} invented names (was one per name)`)
  t.comment(`gateway process CPU for the ${INVENTED} calls: ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms`)
})

t.test('the same invented name again, and the victim\'s own call → served from the cache, no fetch', async (t) => {
  const before = await fetchesSoFar()
  const again = await attacker.rpc('tools/call', { name: 'h__invented-0', arguments: {} })
  t.equal(again.json?.error?.code, -32602)
  const echoed = await victim.rpc('tools/call', { name: 'h__echo', arguments: { text: 'v' } })
  t.match(echoed.json.result, { content: [{ text: 'echo:v' }] })
  t.equal(await fetchesSoFar(), before, 'no fetch')
})
