import t from 'tap'
import { answerServerRequest, isServerRequest, toLegacyParams } from '../../../../src/upstream/legacy/legacy-reply.ts'

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
  t.ok(isServerRequest({ id: 1, method: 'ping' }), 'id + method → server request')
  t.notOk(isServerRequest({ method: 'notifications/progress' }), 'method only → notification')
  t.notOk(isServerRequest({ id: 1, result: {} }), 'id only → response')
})
