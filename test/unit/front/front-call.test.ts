// FrontCall: a routed call's cancellation and notification filter, as the front door makes them.
import t from 'tap'
import type { ServerResponse } from 'node:http'
import { FrontCall } from '../../../src/front/front-call.ts'
import type { ReplyStream } from '../../../src/front/reply-stream.ts'
import type { JsonRpcNotification } from '../../../src/protocol/jsonrpc.ts'

function call(writableEnded: boolean, filter: { progressToken?: string; logLevel?: 'info' }): { call: FrontCall; sent: JsonRpcNotification[] } {
  const sent: JsonRpcNotification[] = []
  const stream = { notify: (n: JsonRpcNotification) => void sent.push(n) } as unknown as ReplyStream
  const res = { writableEnded } as ServerResponse
  return { call: new FrontCall({ res, stream, ...filter }), sent }
}

t.test('the response closing before its end cancels the call; after its end it does not', async (t) => {
  const early = call(false, {}).call
  let heard = 0
  early.signal.addEventListener('abort', () => heard++)
  early.onClose()
  t.equal(early.aborted, true)
  t.equal(heard, 1)
  const late = call(true, {}).call
  late.onClose()
  t.equal(late.aborted, false)
})

t.test('notifications: progress with the client\'s own token, logs at its level (PROG-7, LOG-2)', async (t) => {
  const { call: c, sent } = call(false, { progressToken: 'p1', logLevel: 'info' })
  c.onNotification({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 1 } })
  c.onNotification({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'other', progress: 1 } })
  c.onNotification({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'debug', data: 'x' } })
  c.onNotification({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', data: 'y' } })
  t.same(sent.map((n) => n.params), [{ progressToken: 'p1', progress: 1 }, { level: 'error', data: 'y' }])
  const { call: quiet, sent: none } = call(false, {})
  quiet.onNotification({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 1 } })
  t.same(none, [], 'no token asked: no progress')
})
