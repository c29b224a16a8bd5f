// The one HTTP reply reader, modern and legacy (HTTP-7, SSE-1, SSE-3, LEGACY-C5): bodies as undici
// gives them (async iterables of Buffers), and one real local server through an undici Pool.
import { once } from 'node:events'
import { Readable } from 'node:stream'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { Pool } from 'undici'
import type { JsonObject } from '../../../../src/protocol/jsonrpc.ts'
import { readReply, type HttpReply } from '../../../../src/upstream/http/http-reply.ts'
import { ReplyBudget } from '../../../../src/upstream/shared/reply-budget.ts'

// An undici-like body: the chunks as Buffers, split wherever the test says (even inside a character).
function body(chunks: Array<string | Buffer>, options: { dump?: boolean } = {}): HttpReply['body'] & { dumped: boolean; read: number } {
  const state = {
    dumped: false,
    read: 0,
    async *[Symbol.asyncIterator]() {
      for (const chunk of chunks) {
        state.read++
        yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      }
    },
    ...(options.dump === false ? {} : { dump: async () => { state.dumped = true } }),
  }
  return state
}

function reply(statusCode: number, contentType: string | undefined, chunks: Array<string | Buffer>): HttpReply {
  return { statusCode, headers: contentType === undefined ? {} : { 'content-type': contentType }, body: body(chunks) }
}

const sse = (message: JsonObject): string => `data: ${JSON.stringify(message)}\n\n`
const result = (id: string, value: JsonObject = { ok: 1 }) => ({ jsonrpc: '2.0', id, result: value })
const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1 } }
const ping = { jsonrpc: '2.0', id: 'srv-1', method: 'ping' }
const euro = Buffer.from(JSON.stringify(result('a', { text: '€' })))

interface Case {
  name: string
  response: HttpReply
  resolves?: JsonObject
  rejects?: RegExp
  notifications?: number
  serverRequests?: number
}

const cases: Case[] = [
  { name: 'JSON result → ok', response: reply(200, 'application/json', [JSON.stringify(result('a'))]), resolves: { ok: true, result: { ok: 1 } } },
  { name: 'JSON error → ok:false, passed through', response: reply(200, 'application/json; charset=utf-8', [JSON.stringify({ jsonrpc: '2.0', id: 'a', error: { code: -32602, message: 'bad', data: 1 } })]),
    resolves: { ok: false, error: { code: -32602, message: 'bad', data: 1 } } },
  { name: 'JSON split inside a multi-byte character → decoded whole', response: reply(200, 'application/json', [euro.subarray(0, euro.length - 5), euro.subarray(euro.length - 5)]),
    resolves: { ok: true, result: { text: '€' } } },
  { name: 'NDJSON: notification, then the result → relayed, then ok', response: reply(200, 'application/json', [`${JSON.stringify(progress)}\n${JSON.stringify(result('a'))}\n`]),
    resolves: { ok: true }, notifications: 1 },
  { name: 'JSON array → the matching element', response: reply(200, 'application/json', [JSON.stringify([progress, result('a')])]), resolves: { ok: true }, notifications: 1 },
  { name: '+json media type → read as JSON', response: reply(200, 'application/vnd.x+json', [JSON.stringify(result('a'))]), resolves: { ok: true } },
  { name: 'a response for another id only → no reply', response: reply(200, 'application/json', [JSON.stringify(result('other'))]), rejects: /HTTP 200 without a JSON-RPC response/ },
  { name: 'error with id null → that error', response: reply(400, 'application/json', [JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'no' } })]),
    resolves: { ok: false, error: { code: -32600 } } },
  { name: 'response with neither result nor error → bad reply', response: reply(200, 'application/json', [JSON.stringify({ jsonrpc: '2.0', id: 'a' })]), rejects: /neither a result nor an error/ },
  { name: '200 with non-JSON under application/json → bad reply', response: reply(200, 'application/json', ['<html>']), rejects: /not JSON/ },
  { name: '400 with non-JSON → no reply (the status decides)', response: reply(400, 'text/html', ['<html>']), rejects: /HTTP 400 without a JSON-RPC response/ },
  { name: '404 empty body → no reply', response: reply(404, undefined, []), rejects: /HTTP 404 without/ },
  { name: '202 text/plain → dumped, no reply', response: reply(202, 'text/plain', ['accepted']), rejects: /HTTP 202 without/ },
  { name: 'SSE: priming event, notification, result → relayed, then ok', response: reply(200, 'text/event-stream', ['id: p0\ndata: \n\n', sse(progress), sse(result('a'))]),
    resolves: { ok: true }, notifications: 1 },
  { name: 'SSE: an event split across chunks → one message', response: reply(200, 'text/event-stream', ['da', 'ta: {"jsonrpc":"2.0",', '"id":"a","result":{}}\n', '\n']), resolves: { ok: true } },
  { name: 'SSE: a server request → onServerRequest, then ok', response: reply(200, 'text/event-stream', [sse(ping), sse(result('a'))]), resolves: { ok: true }, serverRequests: 1 },
  { name: 'SSE: messages after the result → drained, not delivered (PROG-3)', response: reply(200, 'text/event-stream', [sse(result('a')), sse(progress)]), resolves: { ok: true }, notifications: 0 },
  { name: 'SSE: stream ends without the result → no reply', response: reply(200, 'text/event-stream', [sse(progress)]), rejects: /HTTP 200 without/, notifications: 1 },
  { name: 'SSE: an event that is not JSON → bad reply', response: reply(200, 'text/event-stream', ['data: nope\n\n']), rejects: /not JSON/ },
]

t.test('readReply: bodies as undici gives them', async (t) => {
  for (const entry of cases) {
    let notifications = 0
    let serverRequests = 0
    const read = readReply(entry.response, {
      id: 'a', maxEventChars: 1_024, onNotification: () => { notifications++ }, onServerRequest: () => { serverRequests++ },
    })
    if (entry.resolves) t.match(await read, entry.resolves, entry.name)
    else await t.rejects(read, { name: 'BadReplyError', message: entry.rejects }, entry.name)
    if (entry.notifications !== undefined) t.equal(notifications, entry.notifications, `${entry.name} (notifications)`)
    t.equal(serverRequests, entry.serverRequests ?? 0, `${entry.name} (server requests)`)
  }
})

// The text a result is spliced from (protocol/result-splice.ts): the lone message as it came,
// read by scanning (protocol/result-scan.ts).
t.test('readReply: a result keeps its message text only when it came alone', async (t) => {
  const lone = ` ${JSON.stringify(result('a'))}\n`
  const cases: Array<[string, HttpReply, string | undefined]> = [
    ['a lone JSON reply → the whole body', reply(200, 'application/json', [lone.slice(0, 9), lone.slice(9)]), lone],
    ['NDJSON lines → none', reply(200, 'application/json', [`${JSON.stringify(progress)}\n${JSON.stringify(result('a'))}\n`]), undefined],
    ['a JSON array → none', reply(200, 'application/json', [JSON.stringify([result('a')])]), undefined],
    ['SSE → the final event\'s data', reply(200, 'text/event-stream', [sse(progress), sse(result('a'))]), JSON.stringify(result('a'))],
  ]
  for (const [name, response, text] of cases) {
    const read = await readReply(response, { id: 'a', maxEventChars: 1_024, scan: true })
    t.equal(read.ok ? read.scan?.text : 'not ok', text, name)
  }
  // The gateway's own use of a result (a list page, a probe) parses it: nothing is scanned.
  const own = await readReply(reply(200, 'application/json', [lone]), { id: 'a', maxEventChars: 1_024 })
  t.same(own, { ok: true, result: { ok: 1 } }, 'without scan: parsed, no scan')
})

// A stream body (undici's is a Readable) is read by its events, not by async iteration.
t.test('readReply: a stream body → read by its events; destroyed early or over the budget → fails, never hangs', async (t) => {
  const text = JSON.stringify(result('a'))
  const whole = Readable.from([Buffer.from(text.slice(0, 7)), Buffer.from(text.slice(7))], { objectMode: false })
  t.match(await readReply({ statusCode: 200, headers: { 'content-type': 'application/json' }, body: whole }, { id: 'a', maxEventChars: 1_024, scan: true }),
    { ok: true, result: { ok: 1 }, scan: { text } }, 'two chunks → the result, with its text')
  const cut = new Readable({ read() {} })
  cut.push(Buffer.from(text.slice(0, 5)))
  setImmediate(() => cut.destroy())
  await t.rejects(readReply({ statusCode: 200, headers: { 'content-type': 'application/json' }, body: cut }, { id: 'a', maxEventChars: 1_024 }),
    { code: 'ERR_STREAM_PREMATURE_CLOSE' }, 'destroyed without an error → premature close')
  const budget = new ReplyBudget(4_096)
  const big = new Readable({ read() {} })
  big.push(Buffer.alloc(3_000, 0x20))
  big.push(Buffer.alloc(3_000, 0x20))
  const failed = readReply({ statusCode: 200, headers: { 'content-type': 'application/json' }, body: big }, { id: 'a', maxEventChars: 1_024, meter: budget.meter('big') })
  await t.rejects(failed, { name: 'BackendError', reason: 'reply_budget' }, 'over the budget → reply_budget')
  t.ok(big.destroyed, 'the body is destroyed')
  t.equal(budget.inFlight, 0, 'nothing left held')
})

t.test('readReply: without onServerRequest a server request is dropped, not taken for the reply', async (t) => {
  const response = reply(200, 'application/json', [`${JSON.stringify({ ...ping, id: 'a' })}\n${JSON.stringify(result('a'))}`])
  t.match(await readReply(response, { id: 'a', maxEventChars: 1_024 }), { ok: true, result: { ok: 1 } })
})

t.test('readReply: a body without dump() is read to its end', async (t) => {
  const plain = body(['x', 'y'], { dump: false })
  await t.rejects(readReply({ statusCode: 204, headers: {}, body: plain }, { id: 'a', maxEventChars: 1_024 }), /HTTP 204 without/)
  t.equal(plain.read, 2, 'both chunks consumed')
  const dumpable = body(['x'])
  await t.rejects(readReply({ statusCode: 204, headers: {}, body: dumpable }, { id: 'a', maxEventChars: 1_024 }))
  t.ok(dumpable.dumped, 'undici bodies are dumped')
})

t.test('readReply: an SSE event over maxEventChars → rejected', async (t) => {
  const response = reply(200, 'text/event-stream', [`data: ${'x'.repeat(200)}`])
  await t.rejects(readReply(response, { id: 'a', maxEventChars: 100 }), /size limit/)
})

t.test('readReply on a real socket: the notification arrives before the stream ends (SSE-1)', async (t) => {
  let finish: () => void = () => {}
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write(sse(progress))
    finish = () => res.end(sse(result('a')))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
  t.teardown(async () => {
    await pool.destroy()
    server.close()
  })
  const response = await pool.request({ path: '/', method: 'POST', body: '{}' })
  let onNotified: (notification: JsonObject) => void = () => {}
  const notified = new Promise<JsonObject>((resolve) => { onNotified = resolve })
  const read = readReply(response, { id: 'a', maxEventChars: 1_024, onNotification: (n) => onNotified(n as unknown as JsonObject) })
  t.same(await notified, progress, 'the notification, while the stream is still open')
  finish()
  t.match(await read, { ok: true, result: { ok: 1 } }, 'then the result')
})

// README "Limits": a JSON reply holds its bytes until parsed, an SSE reply those of the event being
// read, so a long stream of small events never fills the budget but one large reply does.
t.test('with a reply budget: a JSON reply over it fails naming the backend; SSE events are released as they are handed on', async (t) => {
  const budget = new ReplyBudget(4_096)
  const big = JSON.stringify(result('j', { text: 'x'.repeat(5_000) }))
  const chunked = [big.slice(0, 2_000), big.slice(2_000, 4_000), big.slice(4_000)]
  const failed = await readReply(reply(200, 'application/json', chunked), { id: 'j', maxEventChars: 1 << 20, meter: budget.meter('big') }).catch((err: unknown) => err)
  t.match(failed, { name: 'BackendError', reason: 'reply_budget', backend: 'big' }, 'a 5 KB JSON reply against a 4 KB budget → reply_budget')
  t.equal(budget.inFlight, 0, 'nothing left held after the failure')
  const events = Array.from({ length: 50 }, () => sse({ ...progress, params: { ...progress.params, message: 'p'.repeat(200) } }))
  const notified: unknown[] = []
  const done = await readReply(reply(200, 'text/event-stream', [...events, sse(result('s'))]), {
    id: 's', maxEventChars: 1 << 20, meter: budget.meter('stream'), onNotification: (n) => notified.push(n), scan: true,
  })
  t.match(done, { ok: true, result: { ok: 1 }, scan: { text: JSON.stringify(result('s')) } }, '50 events of 250 bytes (12 KB in all) through a 4 KB budget → the result')
  t.equal(notified.length, 50)
  t.equal(budget.inFlight, 0, 'released at the end')
})
