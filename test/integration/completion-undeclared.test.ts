// completion/complete against backends that answer it without declaring `completions` (FEAT-5,
// ERR-8): routed by its ref to the owning backend in both eras; -32601 only when no backend owns
// the ref. Real sockets: an SDK v2 backend started with --undeclared-completions.
import t from 'tap'
import { startFixture } from '../helpers/backend-process.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { createRawClient } from '../helpers/mcp-client.ts'
import { legacyRpc, openRawSession } from '../helpers/legacy-client.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname

const alpha = await startFixture(t, BACKEND, ['--name', 'alpha', '--extras', '--undeclared-completions'])
const gateway = await startGateway(t, { backends: [{ name: 'a', transport: 'http', url: alpha.url, namespace: 'a' }] })
const raw = createRawClient(t, gateway.url)

const TEMPLATE_REF = { type: 'ref/resource', uri: 'fixture://alpha/users/{user}' }
const ARGUMENT = { name: 'user', value: 'alpha-a' }

t.test('server/discover → no completions declared (the backend did not declare them)', async (t) => {
  const reply = await raw.rpc('server/discover', {})
  t.notOk('completions' in reply.json.result.capabilities)
})

t.test('modern completion/complete by template URI → the backend\'s values', async (t) => {
  const reply = await raw.rpc('completion/complete', { ref: TEMPLATE_REF, argument: ARGUMENT })
  t.equal(reply.status, 200, reply.text)
  t.same(reply.json.result.completion.values, ['alpha-ann'])
})

t.test('modern completion/complete by prompt name → answered by the owner', async (t) => {
  const reply = await raw.rpc('completion/complete', { ref: { type: 'ref/prompt', name: 'a__summarize' }, argument: { name: 'topic', value: '' } })
  t.equal(reply.status, 200, reply.text)
  t.ok(Array.isArray(reply.json.result.completion.values))
})

t.test('modern: a ref no backend owns, or no ref → 404 -32601', async (t) => {
  for (const params of [{ ref: { type: 'ref/prompt', name: 'zz__nope' }, argument: ARGUMENT }, { argument: ARGUMENT }]) {
    const reply = await raw.rpc('completion/complete', params, { id: 'unowned' })
    t.equal(reply.status, 404, JSON.stringify(params))
    t.match(reply.json, { id: 'unowned', error: { code: -32601 } })
  }
})

t.test('2025-11-25 session: completion/complete routed; unowned prompt → -32601 (in band, as legacy errors are)', async (t) => {
  const { sessionId } = await openRawSession(raw)
  const done = await legacyRpc(raw, sessionId, 'completion/complete', { ref: TEMPLATE_REF, argument: ARGUMENT }, 2)
  t.equal(done.status, 200, done.text)
  t.same(done.json.result.completion.values, ['alpha-ann'])
  const unowned = await legacyRpc(raw, sessionId, 'completion/complete', { ref: { type: 'ref/prompt', name: 'nope' }, argument: ARGUMENT }, 3)
  t.match(unowned.json, { id: 3, error: { code: -32601 } })
})
