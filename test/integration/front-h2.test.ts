// HTTP/2 on the front (README "HTTPS and HTTP/2"): h2 over TLS by ALPN and cleartext h2c with
// prior knowledge, on real sockets with node:http2 clients. SSE responses, cancellation by stream
// reset (CANCEL-1), body limits and the guards (Host is `:authority` on h2, SEC-1) behave as on
// HTTP/1.1; many streams share one connection.
import t from 'tap'
import { constants } from 'node:http2'
import { once } from 'node:events'
import { startGateway } from '../helpers/start-gateway.ts'
import { startTlsBench } from '../helpers/test-pki.ts'
import { connectH2, readBody, readEvents, requestH2, rpcH2 } from '../helpers/h2-client.ts'
import { buildRpc, createRawClient } from '../helpers/mcp-client.ts'
import { openRawSession, sessionHeaders } from '../helpers/legacy-client.ts'

const { ca, tls, alpha, backends } = await startTlsBench(t)
const tlsGateway = await startGateway(t, { backends, maxBodyBytes: 2048, limits: { callsPerClient: 100 }, tls })
const h2cGateway = await startGateway(t, { backends, http2: 'h2c' })
// Connection-specific headers are forbidden on h2 (RFC 9113 §8.2.2).
const CONNECTION_HEADERS = ['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade']

for (const [name, gateway, caCert] of [['h2 over TLS', tlsGateway, ca.cert], ['h2c', h2cGateway, undefined]] as const) {
  t.test(`${name}: tools/call → JSON, no connection-specific header`, async (t) => {
    const session = await connectH2(t, gateway.origin, caCert)
    const reply = await rpcH2(session, 'tools/call', { name: 'a__echo', arguments: { text: 'hi' } })
    t.equal(reply.status, 200)
    t.match(reply.headers['content-type'], /^application\/json/)
    t.same(JSON.parse(await readBody(reply)).result.content, [{ type: 'text', text: 'alpha:hi' }])
    for (const header of CONNECTION_HEADERS) t.notOk(header in reply.headers, `no ${header}`)
    session.close()
  })
}

t.test('h2: 100 concurrent progress streams over one connection → every stream its own events, then its result', async (t) => {
  let sessions = 0
  const countSession = (): void => void sessions++
  tlsGateway.app.server.on('session', countSession)
  t.teardown(() => tlsGateway.app.server.off('session', countSession))
  const session = await connectH2(t, tlsGateway.origin, ca.cert)
  const calls = Array.from({ length: 100 }, async (_, i) => {
    const reply = await rpcH2(session, 'tools/call', { name: 'a__progress', arguments: { steps: 3, delayMs: 5 } }, { id: i, meta: { progressToken: `p${i}` } })
    const events = await readEvents(reply)
    return { reply, messages: events.map((e) => e.message) }
  })
  const results = await Promise.all(calls)
  results.forEach(({ reply, messages }, i) => {
    const progress = messages.filter((m) => m.method === 'notifications/progress')
    const ok = reply.status === 200 && reply.headers['content-type'] === 'text/event-stream' && progress.length === 3 &&
      progress.every((m) => m.params.progressToken === `p${i}`) && messages.at(-1).id === i && messages.at(-1).result !== undefined
    if (!ok) t.fail(`stream ${i}: ${reply.status} ${JSON.stringify(messages)}`)
  })
  t.equal(results.length, 100, '100 streams answered, each with 3 progress events of its own token and its result')
  t.equal(sessions, 1, 'one h2 session (one connection) carried them all')
  session.close()
})

t.test('h2: RST_STREAM on a call in flight → the backend sees the cancellation (CANCEL-1)', async (t) => {
  const session = await connectH2(t, tlsGateway.origin, ca.cert)
  const { body, headers } = buildRpc('tools/call', { name: 'a__hang', arguments: {} })
  const stream = session.request({ ':method': 'POST', ':path': '/mcp', ...headers })
  stream.end(JSON.stringify(body))
  t.same(await alpha.waitForEvent('started'), { event: 'started', tool: 'hang' })
  stream.close(constants.NGHTTP2_CANCEL)
  t.same(await alpha.waitForEvent('aborted'), { event: 'aborted', tool: 'hang' }, 'the upstream call was aborted')
  // The connection outlives the reset stream.
  const after = await rpcH2(session, 'tools/call', { name: 'a__echo', arguments: { text: 'still here' } })
  t.equal(after.status, 200, 'the same connection serves the next request')
  await readBody(after)
  session.close()
})

t.test('h2 guards: :authority, Origin, body limits → as on HTTP/1.1', async (t) => {
  const session = await connectH2(t, tlsGateway.origin, ca.cert)
  const { body, headers } = buildRpc('tools/call', { name: 'a__echo', arguments: { text: 'x' } })
  const big = JSON.stringify({ ...body, pad: 'x'.repeat(4096) })
  const cases: Array<[string, Record<string, string>, string, number]> = [
    [':authority not allowed', { ...headers, ':authority': 'evil.example' }, JSON.stringify(body), 403],
    ['Origin not allowed', { ...headers, origin: 'https://evil.example' }, JSON.stringify(body), 403],
    ['declared body over maxBodyBytes', { ...headers, 'content-length': String(big.length) }, big, 413],
    ['streamed body over maxBodyBytes (no content-length)', headers, big, 413],
    ['text/plain', { ...headers, 'content-type': 'text/plain' }, JSON.stringify(body), 415],
  ]
  for (const [name, requestHeaders, payload, status] of cases) {
    const reply = await requestH2(session, requestHeaders, payload)
    t.equal(reply.status, status, `${name} → ${status}`)
    await readBody(reply)
  }
  const get = await requestH2(session, { ':method': 'GET' })
  t.equal(get.status, 405, 'GET without a session → 405')
  t.equal(get.headers.allow, 'POST', 'Allow: POST (HTTP-10)')
  await readBody(get)
  session.close()
})

t.test('h2c refuses nothing it should serve: GET /livez over h2c', async (t) => {
  const session = await connectH2(t, h2cGateway.origin)
  const reply = await requestH2(session, { ':method': 'GET', ':path': '/livez' })
  t.equal(reply.status, 200)
  await readBody(reply)
  session.close()
})

t.test('h2, 2025-11-25 session: the GET stream, reset by the client, frees its place; DELETE ends the session', async (t) => {
  const raw = createRawClient(t, tlsGateway.url, { agent: { connect: { ca: ca.cert }, allowH2: true } })
  const { sessionId } = await openRawSession(raw)
  const session = await connectH2(t, tlsGateway.origin, ca.cert)
  const get = { ':method': 'GET', accept: 'text/event-stream', ...sessionHeaders(sessionId) }
  const first = await requestH2(session, get)
  t.equal(first.status, 200, 'the GET stream opens')
  t.equal(first.headers['content-type'], 'text/event-stream')
  const second = await requestH2(session, get)
  t.equal(second.status, 409, 'one GET stream per session')
  await readBody(second)
  first.stream.close(constants.NGHTTP2_CANCEL)
  await once(first.stream, 'close')
  // Frames arrive in order: the gateway sees the reset before the next request on the connection.
  const again = await requestH2(session, get)
  t.equal(again.status, 200, 'after the reset → a new GET stream')
  again.stream.close(constants.NGHTTP2_CANCEL)
  const ended = await requestH2(session, { ':method': 'DELETE', ...sessionHeaders(sessionId) })
  t.equal(ended.status, 204, 'DELETE → 204')
  await readBody(ended)
  session.close()
})
