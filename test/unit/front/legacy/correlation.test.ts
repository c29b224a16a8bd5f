// Server-initiated requests and the client's answers (LEGACY-16, LEGACY-13): every outcome of a round,
// on node:test's clock for the bounded wait.
import { mock } from 'node:test'
import t from 'tap'
import { answerKey, askClient, cancelKey, type AskOptions } from '../../../../src/front/legacy/correlation.ts'
import type { LegacyStream } from '../../../../src/front/legacy/legacy-stream.ts'
import { MemoryHandOff } from '../../../../src/shared-state/hand-off.ts'

const INPUTS = { name: { method: 'elicitation/create', params: { message: 'Name?' } }, roots: { method: 'roots/list' } }

function setup(signal = new AbortController().signal) {
  const sent: any[] = []
  const handOff = new MemoryHandOff()
  let n = 0
  const options: AskOptions = {
    handOff, timeoutMs: 1_000, sessionId: 's1', signal,
    stream: { send: (message: object) => sent.push(message) } as unknown as LegacyStream,
    nextId: () => `c-${++n}`,
  }
  return { sent, handOff, options }
}

t.test('keys keep the id JSON type and the session apart', async (t) => {
  t.not(answerKey('s', 1), answerKey('s', '1'), '1 ≠ "1"')
  t.not(answerKey('s', 1), answerKey('t', 1), 'sessions apart')
  t.not(answerKey('s', 1), cancelKey('s', 1), 'answers and cancels apart')
})

t.test('every request answered → inputResponses under the input keys; nothing left waiting', async (t) => {
  const { sent, handOff, options } = setup()
  const asked = askClient(options, INPUTS)
  t.same(sent, [
    { jsonrpc: '2.0', id: 'c-1', method: 'elicitation/create', params: { message: 'Name?' } },
    { jsonrpc: '2.0', id: 'c-2', method: 'roots/list' },
  ])
  t.equal(await handOff.deliver(answerKey('s1', 'c-2'), { jsonrpc: '2.0', id: 'c-2', result: { roots: [] } }), true)
  t.equal(await handOff.deliver(answerKey('s1', 'c-1'), { jsonrpc: '2.0', id: 'c-1', result: { action: 'decline' } }), true)
  t.same(await asked, { kind: 'answered', inputResponses: { name: { action: 'decline' }, roots: { roots: [] } } })
  t.equal(handOff.size, 0)
})

t.test('no input requests (state only, MRTR-6) → answered at once, nothing sent', async (t) => {
  const { sent, options } = setup()
  t.same(await askClient(options, {}), { kind: 'answered', inputResponses: {} })
  t.same(sent, [])
})

t.test('an error answer → failed with the client\'s error; the other request withdrawn', async (t) => {
  const { handOff, options } = setup()
  const asked = askClient(options, INPUTS)
  await handOff.deliver(answerKey('s1', 'c-1'), { jsonrpc: '2.0', id: 'c-1', error: { code: -32601, message: 'no elicitation here' } })
  const outcome = await asked
  t.match(outcome, { kind: 'failed', error: { code: 'MCP_GATEWAY_CLIENT_ANSWER_REFUSED', message: /elicitation\/create: -32601 no elicitation here/, data: { clientError: { code: -32601 } } } })
  t.equal(handOff.size, 0, 'nothing left waiting')
})

t.test('no answer in time → failed, and the unanswered requests are cancelled toward the client', async (t) => {
  mock.timers.enable({ apis: ['setTimeout'] })
  t.teardown(() => mock.timers.reset())
  const { sent, handOff, options } = setup()
  const asked = askClient(options, INPUTS)
  await handOff.deliver(answerKey('s1', 'c-2'), { jsonrpc: '2.0', id: 'c-2', result: { roots: [] } })
  mock.timers.tick(1_000)
  t.match(await asked, { kind: 'failed', error: { code: 'MCP_GATEWAY_CLIENT_ANSWER_TIMEOUT', message: /elicitation\/create not answered within 1000 ms/ } })
  t.same(sent.slice(2), [{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c-1', reason: 'no answer within 1000 ms' } }], 'only the unanswered one')
  t.equal(handOff.size, 0)
})

t.test('the call aborted (cancel, disconnect) → aborted, before or while waiting', async (t) => {
  const before = new AbortController()
  before.abort()
  const early = setup(before.signal)
  t.same(await askClient(early.options, INPUTS), { kind: 'aborted' })
  t.same(early.sent, [], 'nothing sent')
  const during = new AbortController()
  const late = setup(during.signal)
  const asked = askClient(late.options, INPUTS)
  during.abort()
  t.same(await asked, { kind: 'aborted' })
  t.equal(late.handOff.size, 0)
})
