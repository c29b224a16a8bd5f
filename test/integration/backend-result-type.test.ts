// A backend result's resultType (RPC-5, RPC-6), on real sockets: a node:http backend whose tools
// answer with resultType absent, "complete", or one no extension the gateway advertises defines
// ("task", "bogus"). Absent → stamped complete; an unknown value is an invalid reply from that
// backend (-32603 naming it), for a 2026-07-28 client and a 2025-11-25 session alike.
// Before: an unknown resultType was passed on to the client as if valid.
import t from 'tap'
import { legacyRpc, openRawSession } from '../helpers/legacy-client.ts'
import { createRawClient } from '../helpers/mcp-client.ts'
import { startRecordingBackend } from '../helpers/recording-backend.ts'
import { startGateway } from '../helpers/start-gateway.ts'

const text = [{ type: 'text', text: 'done' }]
const tool = (name: string, result: Record<string, unknown>) => ({ name, inputSchema: { type: 'object' }, result })
const backend = await startRecordingBackend(t, [
  tool('absent', { content: text }),
  tool('complete', { resultType: 'complete', content: text }),
  tool('task', { resultType: 'task', task: { taskId: 't1', status: 'working' } }),
  tool('bogus', { resultType: 'bogus', content: text }),
])
const gateway = await startGateway(t, { backends: [{ name: 'r', transport: 'http', url: backend.url, namespace: 'r' }] })
const raw = createRawClient(t, gateway.url)

t.test('2026-07-28: absent or complete → complete; an unknown resultType → -32603 bad_reply naming the backend', async (t) => {
  for (const name of ['absent', 'complete']) {
    const reply = await raw.rpc('tools/call', { name: `r__${name}`, arguments: {} })
    t.equal(reply.status, 200)
    t.match(reply.json.result, { resultType: 'complete', content: text }, `${name} → complete`)
  }
  for (const name of ['task', 'bogus']) {
    const reply = await raw.rpc('tools/call', { name: `r__${name}`, arguments: {} }, { id: name })
    t.equal(reply.status, 200, `${name}: in band`)
    t.notOk(reply.json.result, `${name}: no result passed on`)
    t.match(reply.json.error, { code: -32603, message: new RegExp(`unrecognized resultType "${name}"`), data: { backend: 'r', reason: 'bad_reply' } })
  }
})

t.test('2025-11-25 session: the same refusal', async (t) => {
  const { sessionId } = await openRawSession(raw)
  const ok = await legacyRpc(raw, sessionId, 'tools/call', { name: 'r__complete', arguments: {} }, 'ok')
  t.match(ok.json.result, { content: text })
  const task = await legacyRpc(raw, sessionId, 'tools/call', { name: 'r__task', arguments: {} }, 'task')
  t.match(task.json.error, { code: -32603, data: { backend: 'r', reason: 'bad_reply' } })
})
