// Which backend notifications reach the client on a request's own stream (SSE-1, SSE-7, LOG-2,
// LOG-7, PROG-7): progress only with the client's own token, log messages only at or above the
// level it asked for, nothing else.
import t from 'tap'
import { isDeliverable, type StreamFilter } from '../../../src/front/notifications.ts'
import type { JsonRpcNotification } from '../../../src/protocol/jsonrpc.ts'

const notification = (method: string, params?: Record<string, unknown>): JsonRpcNotification =>
  params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }
const progress = (progressToken: unknown): JsonRpcNotification => notification('notifications/progress', { progressToken, progress: 1, total: 2 })
const log = (level: unknown): JsonRpcNotification => notification('notifications/message', { level, data: 'hello' })

const NOTHING: StreamFilter = { progressToken: undefined, logLevel: undefined }
const TOKEN_ABC: StreamFilter = { progressToken: 'abc', logLevel: undefined }
const TOKEN_7: StreamFilter = { progressToken: 7, logLevel: undefined }
const AT_INFO: StreamFilter = { progressToken: undefined, logLevel: 'info' }
const AT_WARNING: StreamFilter = { progressToken: 'abc', logLevel: 'warning' }

t.test('isDeliverable: a notification and what the client asked for → delivered or not', async (t) => {
  const cases: Array<[string, JsonRpcNotification, StreamFilter, boolean]> = [
    // Progress (PROG-7): only with the client's token.
    ['progress "abc", client token "abc" → delivered', progress('abc'), TOKEN_ABC, true],
    ['progress 7, client token 7 → delivered', progress(7), TOKEN_7, true],
    ['progress "xyz", client token "abc" → dropped', progress('xyz'), TOKEN_ABC, false],
    ['progress "7", client token 7 → dropped (same JSON type only)', progress('7'), TOKEN_7, false],
    ['progress "abc", client sent no token → dropped', progress('abc'), NOTHING, false],
    ['progress without a token, client sent no token → dropped', notification('notifications/progress', { progress: 1 }), NOTHING, false],
    ['progress without params, client token "abc" → dropped', notification('notifications/progress'), TOKEN_ABC, false],
    ['progress "abc", client asked for logs only → dropped', progress('abc'), AT_INFO, false],
    // Logs (LOG-2, LOG-7): only with a level, at that level or more severe.
    ['log info, client level info → delivered', log('info'), AT_INFO, true],
    ['log emergency, client level info → delivered', log('emergency'), AT_INFO, true],
    ['log error, client level warning → delivered', log('error'), AT_WARNING, true],
    ['log warning, client level warning → delivered', log('warning'), AT_WARNING, true],
    ['log notice, client level warning → dropped', log('notice'), AT_WARNING, false],
    ['log debug, client level info → dropped', log('debug'), AT_INFO, false],
    ['log info, client set no level → dropped', log('info'), NOTHING, false],
    ['log info, client sent a progress token only → dropped', log('info'), TOKEN_ABC, false],
    ['log with an unknown level "verbose", client level info → dropped', log('verbose'), AT_INFO, false],
    ['log without a level, client level info → dropped', notification('notifications/message', { data: 'x' }), AT_INFO, false],
    ['log without params, client level info → dropped', notification('notifications/message'), AT_INFO, false],
    // Anything else does not belong on a request's stream (SSE-1, SSE-7).
    ['tools/list_changed, client asked for everything → dropped', notification('notifications/tools/list_changed'), AT_WARNING, false],
    ['resources/updated, client asked for everything → dropped', notification('notifications/resources/updated', { uri: 'file:///a' }), AT_WARNING, false],
    ['cancelled, client asked for everything → dropped', notification('notifications/cancelled', { requestId: 1 }), AT_WARNING, false],
    ['an unknown method carrying the client token → dropped', notification('notifications/other', { progressToken: 'abc' }), TOKEN_ABC, false],
  ]
  // A fresh filter per case: isDeliverable records the progress it passes on.
  for (const [name, message, filter, expected] of cases) t.equal(isDeliverable(message, { ...filter }), expected, name)
})

t.test('isDeliverable: progress on one stream passes only when it increases (PROG-2)', async (t) => {
  const at = (value: unknown): JsonRpcNotification => notification('notifications/progress', { progressToken: 'abc', progress: value })
  const filter: StreamFilter = { ...TOKEN_ABC }
  const sequence: Array<[unknown, boolean]> = [
    [0, true], [0.5, true], [0.5, false], [0.25, false], [1, true], ['2', false], [Number.NaN, false], [undefined, false], [3, true],
  ]
  t.same(sequence.map(([value]) => isDeliverable(at(value), filter)), sequence.map(([, passed]) => passed),
    '0, 0.5 pass; a repeat, a step back, a string, NaN and a missing value are dropped; 1 and 3 pass')
  t.equal(filter.lastProgress, 3, 'the last value passed on is kept')
  t.ok(isDeliverable(at(1), { ...TOKEN_ABC }), 'another stream starts afresh')
})
