// Log amplification (issue 11 item 9): a 1 MiB JSON-RPC id, method or tool name must not become a
// 1 MiB log line. The access line clips each client string (ids, methods, names) to 256 characters
// and says how long it was; any other line over 16 KiB (here the debug line with the body) is
// replaced by a short one. Before: a 1 MiB id or method was a 1 MiB access line.
import t from 'tap'
import { startGateway, type LogRecord } from '../helpers/start-gateway.ts'
import { createRawClient } from '../helpers/mcp-client.ts'
import { startFixture } from '../helpers/backend-process.ts'

const MIB = 1024 * 1024
const LINE_MAX = 16 * 1024
const HOSTILE = new URL('../fixtures/hostile-backend.ts', import.meta.url).pathname
const backend = await startFixture(t, HOSTILE)
const gateway = await startGateway(t, { backends: [{ name: 'h', transport: 'http', url: backend.url, namespace: 'h' }] }, { logs: true, logLevel: 'debug' })
const attacker = createRawClient(t, gateway.url, { localAddress: '127.0.0.2' })
const logs = gateway.logs!

const isAccess = (marker: string) => (r: LogRecord): boolean => r.msg === 'mcp request' && JSON.stringify(r).includes(marker)

t.test('a 1 MiB id → an access line under 16 KiB naming the id\'s length; no line over 16 KiB', async (t) => {
  const id = `id-${'x'.repeat(MIB)}`
  const reply = await attacker.rpc('tools/call', { name: 'nope', arguments: {} }, { id })
  t.equal(reply.json?.id, id, 'the id still echoed in full to the client')
  const access = await logs.waitFor(isAccess(`[${id.length} chars]`))
  t.ok(JSON.stringify(access).length < LINE_MAX, `access line ${JSON.stringify(access).length} chars`)
  t.match(access.rpcId, /^id-x{253}…\[1048579 chars\]$/)
})

// A tool name is mirrored in Mcp-Name, so the header limit (16 KiB in all) bounds it: 12,000 chars.
t.test('a 1 MiB method and a 12,000-character tool name → clipped too', async (t) => {
  const method = `m/${'y'.repeat(MIB)}`
  const byMethod = await attacker.post({ jsonrpc: '2.0', id: 1, method, params: {} })
  t.equal(byMethod.status, 400, 'refused')
  const methodLine = await logs.waitFor(isAccess(`[${method.length} chars]`))
  t.ok(JSON.stringify(methodLine).length < LINE_MAX)
  const name = `t-${'z'.repeat(12_000)}`
  await attacker.rpc('tools/call', { name, arguments: {} })
  const toolLine = await logs.waitFor(isAccess(`[${name.length} chars]`))
  t.ok(JSON.stringify(toolLine).length < 1024, `tool line ${JSON.stringify(toolLine).length} chars`)
})

t.test('every line written so far is under 16 KiB; the oversized debug body lines say they were cut', async (t) => {
  const longest = Math.max(...logs.seen().map((r) => JSON.stringify(r).length))
  t.ok(longest < LINE_MAX, `longest line ${longest} chars`)
  const cut = logs.seen().filter((r) => r.truncated === true && r.msg === 'mcp request body')
  t.equal(cut.length, 2, 'the two 1 MiB bodies\' debug lines replaced')
  t.ok(cut.every((r) => typeof r.bytes === 'number' && (r.bytes as number) > MIB), 'each names its original size')
})
