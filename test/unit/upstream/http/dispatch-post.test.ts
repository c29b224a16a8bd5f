// dispatchPost: one POST through undici's dispatch API against a real node:http server on
// 127.0.0.1: replies read whole or streamed, aborts before, while queued, while waiting and while
// streaming, and the reply budget's refusal.
import t from 'tap'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Pool } from 'undici'
import { abortSourceOf, dispatchPost } from '../../../../src/upstream/http/dispatch-post.ts'
import { CallSignal } from '../../../../src/upstream/shared/call-signal.ts'
import { CallCancel } from '../../../../src/upstream/shared/cancel-signal.ts'

type Route = (req: IncomingMessage, res: ServerResponse) => void
const routes = new Map<string, Route>()
const arrived: string[] = []
const server = createServer((req, res) => {
  arrived.push(req.url ?? '')
  req.resume()
  routes.get(req.url ?? '')?.(req, res)
})
server.listen(0, '127.0.0.1')
await once(server, 'listening')
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const pool = new Pool(origin, { connections: 4, pipelining: 1 })
t.teardown(async () => {
  await pool.destroy()
  server.closeAllConnections()
  server.close()
})

const HEADERS = { 'content-type': 'application/json' }
const post = (path: string, abort = new CallSignal(undefined, 5_000), meter?: { hold(bytes: number): void }) =>
  dispatchPost(pool, { path, headers: HEADERS, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}', abort, meter })

t.test('a JSON reply is read whole: its text, status and headers', async (t) => {
  routes.set('/json', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}'))
  const reply = await post('/json')
  t.equal(reply.statusCode, 200)
  t.equal(reply.headers['content-type'], 'application/json')
  t.equal(reply.text, '{"jsonrpc":"2.0","id":1,"result":{}}')
  await reply.body.dump?.()
})

t.test('an error status keeps its body (read as a JSON-RPC error); another type under 400 is discarded', async (t) => {
  routes.set('/html500', (_req, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<p>bad gateway</p>'))
  routes.set('/plain', (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('not for us'))
  t.equal((await post('/html500')).text, '<p>bad gateway</p>')
  const plain = await post('/plain')
  t.equal(plain.statusCode, 200)
  t.equal(plain.text, '', 'nothing kept')
})

// The route answers with an SSE stream whose first event is sent, then holds it open.
// Resolves with its response, whose 'close' before its end is the client's cut.
function holdStream(path: string): Promise<ServerResponse> {
  return new Promise((resolve) => routes.set(path, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' }).write('data: {"a":1}\n\n')
    resolve(res)
  }))
}

t.test('an SSE reply resolves at its headers and streams; a body let go closes its request', async (t) => {
  const upstream = holdStream('/sse')
  const reply = await post('/sse')
  t.equal(reply.text, undefined, 'not read whole')
  const iterator = reply.body[Symbol.asyncIterator]()
  t.equal(String((await iterator.next()).value), 'data: {"a":1}\n\n')
  const closed = once(await upstream, 'close')
  await iterator.return?.()
  await closed
  t.pass('the upstream request was closed')
})

t.test('the caller aborts mid-stream → the reader hears the reason, the request is closed', async (t) => {
  const upstream = holdStream('/sse-abort')
  const caller = new AbortController()
  const reply = await post('/sse-abort', new CallSignal(caller.signal, 60_000))
  const closed = once(await upstream, 'close')
  const reason = new Error('cut')
  const reading = (async () => {
    for await (const _chunk of reply.body) caller.abort(reason)
  })()
  await t.rejects(reading, reason)
  await closed
})

t.test('aborted before it is sent → rejected with the reason, nothing reaches the server', async (t) => {
  const controller = new AbortController()
  const reason = new Error('client went away')
  controller.abort(reason)
  const before = arrived.length
  await t.rejects(post('/never', new CallSignal(controller.signal, 5_000)), reason)
  t.equal(arrived.length, before)
})

t.test('a timeout while waiting for the headers → TimeoutError, the request closed', async (t) => {
  // The route never answers; 'close' is watched from the moment the request arrives (a loaded
  // machine may even time out before it arrives: then it is never sent).
  let closed: Promise<unknown> | undefined
  routes.set('/hang', (_req, res) => {
    closed = once(res, 'close')
  })
  await t.rejects(post('/hang', new CallSignal(undefined, 200)), { name: 'TimeoutError' })
  if (closed !== undefined) await closed
  t.pass('the request, if it was sent, was closed')
})

t.test('queued for a connection and aborted → rejected at once, never sent', async (t) => {
  const single = new Pool(origin, { connections: 1 })
  t.teardown(() => single.destroy())
  let release: (() => void) | undefined
  const reached = new Promise<void>((resolve) => routes.set('/hold', (_req, res) => {
    release = () => res.writeHead(200, HEADERS).end('{}')
    resolve()
  }))
  const first = dispatchPost(single, { path: '/hold', headers: HEADERS, body: '{}', abort: new CallSignal(undefined, 5_000) })
  await reached
  const controller = new AbortController()
  const queued = dispatchPost(single, { path: '/queued', headers: HEADERS, body: '{}', abort: abortSourceOf(controller.signal) })
  const reason = new Error('gave up')
  controller.abort(reason)
  await t.rejects(queued, reason, 'rejected while still queued')
  release!()
  t.equal((await first).text, '{}')
  // One connection, one request at a time: a later request is answered only after the queued one
  // would have been sent.
  routes.set('/after', (_req, res) => res.writeHead(200, HEADERS).end('{"after":true}'))
  const after = await dispatchPost(single, { path: '/after', headers: HEADERS, body: '{}', abort: new CallSignal(undefined, 5_000) })
  t.equal(after.text, '{"after":true}')
  t.notOk(arrived.includes('/queued'), 'the queued request never reached the server')
})

t.test('the reply budget refuses a chunk → the request fails with its error', async (t) => {
  routes.set('/big', (_req, res) => res.writeHead(200, HEADERS).end(`{"pad":"${'x'.repeat(64 * 1024)}"}`))
  const refusal = new Error('over budget')
  let held = 0
  const meter = {
    hold(bytes: number) {
      held += bytes
      if (held > 1024) throw refusal
    },
  }
  await t.rejects(post('/big', new CallSignal(undefined, 5_000), meter), refusal)
})

t.test('an SSE reply that ended lets go of its deadline: the caller no longer reaches it', async (t) => {
  routes.set('/sse-ended', (_req, res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {"a":1}\n\n'))
  const caller = new CallCancel()
  const deadline = new CallSignal(caller, 60_000)
  const reply = await post('/sse-ended', deadline)
  let text = ''
  for await (const chunk of reply.body) text += String(chunk)
  t.equal(text, 'data: {"a":1}\n\n')
  caller.abort()
  t.equal(deadline.aborted, false, 'disposed at the stream\'s end')
})
