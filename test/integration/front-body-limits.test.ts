// Body sink after 413 and slow bodies (issue 11 items 6 and 11), on real sockets. A refusal while
// the body is still unread closes the connection (a bounded lingering close), so a client that
// declares 16 GiB, or streams a chunked body without end, is cut after a small multiple of
// maxBodyBytes; a body that stalls between chunks, or takes too long in all, gets 408 with a
// JSON-RPC error. Before: the gateway answered 413 and kept reading (4.2 GiB in 8 s at 87 % of a
// core); slow bodies lived up to 300 s.
import t from 'tap'
import type { Socket } from 'node:net'
import { startGateway } from '../helpers/start-gateway.ts'
import { openRaw, parseResponse, postHead } from '../helpers/raw-http.ts'
import { metricValue } from '../helpers/mcp-client.ts'

const MAX_BODY = 1024 * 1024
// Past this the test stops writing and fails: the gateway would be sinking the body.
const GIVE_UP = 256 * MAX_BODY
const CHUNK = Buffer.alloc(64 * 1024, 0x20)

const gateway = await startGateway(t, { backends: [], maxBodyBytes: MAX_BODY })
const port = Number(new URL(gateway.origin).port)

// Writes body bytes as fast as the connection takes them until the gateway closes it (or the
// test gives up); resolves with the bytes the gateway let through and what it answered.
async function flood(head: string, chunked: boolean, localAddress: string): Promise<{ written: number; received: Buffer }> {
  const conn = await openRaw(t, port, localAddress)
  const socket: Socket = conn.socket
  socket.write(head)
  let closed = false
  void conn.closed.then(() => (closed = true))
  const frame = chunked ? Buffer.concat([Buffer.from(`${CHUNK.length.toString(16)}\r\n`), CHUNK, Buffer.from('\r\n')]) : CHUNK
  while (!closed && !socket.destroyed && socket.bytesWritten < GIVE_UP) {
    if (!socket.write(frame)) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), conn.closed])
  }
  socket.destroy()
  return { written: socket.bytesWritten, received: conn.received() }
}

t.test('a declared 16 GiB body → 413 with a JSON-RPC error and the connection closed after a few maxBodyBytes', async (t) => {
  const { written, received } = await flood(postHead(['Content-Length: 17179869184']), false, '127.0.0.2')
  t.ok(written < 8 * MAX_BODY, `${(written / MAX_BODY).toFixed(1)} × maxBodyBytes written before the cut (bound 8)`)
  const response = parseResponse(received)
  t.equal(response?.status, 413)
  t.match(response?.json, { jsonrpc: '2.0', error: { code: -32600 } })
  t.equal(response?.headers.connection, 'close')
})

t.test('a chunked body growing past maxBodyBytes → 413 and the connection closed', async (t) => {
  const { written, received } = await flood(postHead(['Transfer-Encoding: chunked']), true, '127.0.0.2')
  t.ok(written < 8 * MAX_BODY, `${(written / MAX_BODY).toFixed(1)} × maxBodyBytes written before the cut (bound 8)`)
  const response = parseResponse(received)
  t.equal(response?.status, 413)
  t.match(response?.json, { jsonrpc: '2.0', error: { code: -32600 } })
})

t.test('the refusals are counted', async (t) => {
  const metrics = await (await fetch(`${gateway.origin}/metrics`)).text()
  t.ok(metricValue(metrics, 'mcp_gateway_limit_refusals_total', { limit: 'body_too_large', backend: '' }) >= 2, 'body_too_large counted')
})

// Small limits so the test takes a second, not a minute (defaults: 30 s between chunks, 60 s in all).
const IDLE_MS = 300
const TOTAL_MS = 1_200
const slow = await startGateway(t, { backends: [], limits: { bodyIdleMs: IDLE_MS, bodyTimeoutMs: TOTAL_MS } })
const slowPort = Number(new URL(slow.origin).port)

// Sends the head and the first bytes of a 1000-byte body, then `more` (a trickle) until the gateway
// answers; resolves with the answer and how long it took.
async function stall(trickle: boolean): Promise<{ received: Buffer; elapsed: number }> {
  const conn = await openRaw(t, slowPort, '127.0.0.2')
  const started = performance.now()
  conn.socket.write(`${postHead(['Content-Length: 1000'])}{"jsonrpc":`)
  // A byte every IDLE_MS / 3: never idle long enough, but never done either.
  const dripping = trickle ? setInterval(() => conn.socket.write(' '), IDLE_MS / 3) : undefined
  t.teardown(() => clearInterval(dripping))
  await conn.closed
  clearInterval(dripping)
  return { received: conn.received(), elapsed: performance.now() - started }
}

t.test(`a body that stops arriving → 408 with a JSON-RPC error after bodyIdleMs (${IDLE_MS} ms), connection closed`, async (t) => {
  const { received, elapsed } = await stall(false)
  const response = parseResponse(received)
  t.equal(response?.status, 408)
  t.match(response?.json, { jsonrpc: '2.0', error: { code: -32600, message: /not received in time/ } })
  t.ok(elapsed >= IDLE_MS && elapsed < TOTAL_MS, `cut after ${elapsed.toFixed(0)} ms`)
})

t.test(`a body that trickles in → 408 after bodyTimeoutMs (${TOTAL_MS} ms) in all`, async (t) => {
  const { received, elapsed } = await stall(true)
  t.equal(parseResponse(received)?.status, 408)
  t.ok(elapsed >= TOTAL_MS && elapsed < TOTAL_MS + 2_000, `cut after ${elapsed.toFixed(0)} ms`)
})

t.test('a victim on another address is served meanwhile, and body_timeout is counted', async (t) => {
  const victim = await fetch(slow.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  t.equal(victim.status, 400, 'the victim\'s own (invalid) request is answered at once')
  await victim.text()
  const metrics = await (await fetch(`${slow.origin}/metrics`)).text()
  t.equal(metricValue(metrics, 'mcp_gateway_limit_refusals_total', { limit: 'body_timeout', backend: '' }), 2, 'body_timeout counted twice')
})
