import t from 'tap'
import { readReply } from '../../../../src/upstream/stdio/stdio-session.ts'

t.test('readReply: a child response → result, error or invalid', async (t) => {
  const cases = [
    { name: 'result object → ok', message: { jsonrpc: '2.0', id: 'a', result: { x: 1 } }, reply: { ok: true, result: { x: 1 } } },
    { name: 'error with code and message → passed through', message: { jsonrpc: '2.0', id: 'a', error: { code: -32601, message: 'nope', data: 1 } }, reply: { ok: false, error: { code: -32601, message: 'nope', data: 1 } } },
    { name: 'error without message → invalid', message: { jsonrpc: '2.0', id: 'a', error: { code: -32601 } }, reply: { ok: 'invalid' } },
    { name: 'error with fractional code → invalid', message: { jsonrpc: '2.0', id: 'a', error: { code: 1.5, message: 'x' } }, reply: { ok: 'invalid' } },
    { name: 'result that is an array → invalid', message: { jsonrpc: '2.0', id: 'a', result: [] }, reply: { ok: 'invalid', detail: 'result is not an object' } },
    { name: 'result null → invalid', message: { jsonrpc: '2.0', id: 'a', result: null }, reply: { ok: 'invalid' } },
  ]
  for (const entry of cases) t.match(readReply(entry.message), entry.reply, entry.name)
})
