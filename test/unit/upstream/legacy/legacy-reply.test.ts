import t from 'tap'
import { answerCallRequest, answerServerRequest, toLegacyParams } from '../../../../src/upstream/legacy/legacy-reply.ts'

t.test('toLegacyParams → io.modelcontextprotocol/* _meta keys dropped, progressToken and others kept', async (t) => {
  const params = { name: 'echo', _meta: { 'io.modelcontextprotocol/protocolVersion': '2025-11-25', 'io.modelcontextprotocol/clientInfo': {}, progressToken: 7, 'x.example/k': 1 } }
  t.same(toLegacyParams(params), { name: 'echo', _meta: { progressToken: 7, 'x.example/k': 1 } })
  t.same(toLegacyParams({ _meta: { 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } }), {}, 'nothing left → no _meta')
  t.same(toLegacyParams({ cursor: 'c' }), { cursor: 'c' }, 'no _meta → unchanged')
})

t.test('answerServerRequest (LEGACY-C5)', async (t) => {
  t.same(answerServerRequest({ jsonrpc: '2.0', id: 3, method: 'ping' }), { jsonrpc: '2.0', id: 3, result: {} }, 'ping → {}')
  for (const method of ['sampling/createMessage', 'elicitation/create', 'roots/list']) {
    t.match(answerServerRequest({ jsonrpc: '2.0', id: 'r', method }), { id: 'r', error: { code: -32601, message: /not supported by the gateway yet/ } }, `${method} → -32601`)
  }
})

t.test('answerCallRequest (LEGACY-C5, G8)', async (t) => {
  const bridge = async () => ({ result: { action: 'accept' } })
  const failing = async () => { throw new Error('client gone') }
  const cases = [
    { name: 'elicitation/create with a bridge → the bridge\'s answer', request: { id: 1, method: 'elicitation/create', params: { message: 'm' } }, bridge, answer: { result: { action: 'accept' } } },
    { name: 'roots/list without a bridge → -32601', request: { id: 1, method: 'roots/list' }, bridge: undefined, answer: { error: { code: -32601 } } },
    { name: 'ping with a bridge → answered locally {}', request: { id: 1, method: 'ping' }, bridge, answer: { result: {} } },
    { name: 'sampling/createMessage, bridge throws → -32603 naming the method', request: { id: 1, method: 'sampling/createMessage' }, bridge: failing,
      answer: { error: { code: -32603, message: 'the gateway could not relay sampling/createMessage: client gone' } } },
  ]
  for (const entry of cases) t.match(await answerCallRequest(entry.request, entry.bridge), entry.answer, entry.name)
})
