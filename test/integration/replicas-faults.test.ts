// Faults with three gateway processes behind a real nginx and a real Redis (README "Running N
// replicas"): a replica SIGKILLed under load fails only its own in-flight calls (each client sees
// its stream cut), and the others, and every new call, keep working; Redis stopped mid-run →
// plain calls (modern and legacy) keep working, /readyz says what cannot be done, a hand-off
// fails with the catalogue error, and everything works again when Redis is back.
import t from 'tap'
import { Agent, request } from 'undici'
import { startFixture } from '../helpers/backend-process.ts'
import { createRawClient } from '../helpers/mcp-client.ts'
import { legacyRpc, openRawSession, sessionHeaders } from '../helpers/legacy-client.ts'
import { replicaTestsMissing, startReplicas } from '../helpers/replicas.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname
const missing = replicaTestsMissing()
const ANSWER_TIMEOUT_MS = 2_000

if (missing !== undefined) {
  t.plan(0, missing)
} else {
  const alpha = await startFixture(t, BACKEND, ['--name', 'alpha', '--extras'])
  const { gateways, lb, addresses, redis } = await startReplicas(t, {
    backends: [{ name: 'a', transport: 'http', url: alpha.url, namespace: 'a' }],
    clientAnswerTimeoutMs: ANSWER_TIMEOUT_MS,
  })
  await alpha.waitForEvent('listen-opened', (event) => event.listeners === 3)
  const raw = createRawClient(t, lb.url)
  const agent = new Agent()
  t.teardown(() => agent.destroy())

  t.test('Redis stopped: plain calls work, readyz says what cannot be done, a hand-off fails clearly; Redis back → all works', async (t) => {
    const { sessionId } = await openRawSession(raw, { elicitation: {} })
    const marks = gateways.map((gw) => gw.lines.length)
    await redis.stop()
    await Promise.all(gateways.map((gw, i) => gw.waitForLine(/redis: unreachable/, marks[i])))
    for (let i = 0; i < 3; i++) {
      t.match((await raw.rpc('tools/call', { name: 'a__echo', arguments: { text: 'plain' } })).json.result, { content: [{ text: 'alpha:plain' }] }, `modern call ${i}`)
      t.match((await legacyRpc(raw, sessionId, 'tools/call', { name: 'a__echo', arguments: { text: 'old' } })).json.result, { content: [{ text: 'alpha:old' }] }, `legacy call ${i}`)
    }
    const ready = await createRawClient(t, gateways[1].url).send('GET', '/readyz') // per replica (not through nginx)
    t.equal(ready.status, 200, 'still ready: it serves what needs no shared state')
    t.match(ready.json.redis, { status: 'down', unavailable: [/^hand_off: /, /^session_state: /, /^session_delete: /, /^state_single_use: /, /^rate_limit: /] })
    const asked = await askName(lb.url, agent, sessionId)
    const answer = await raw.post({ jsonrpc: '2.0', id: asked.request.id, result: { action: 'accept', content: { name: 'Ada' } } }, sessionHeaders(sessionId))
    t.not(answer.headers['x-replica'], asked.replica, 'the answer landed on another replica')
    t.equal(answer.status, 503)
    t.match(answer.json.error, { code: -32603, message: /Shared state \(Redis\) is unreachable/ })
    t.match(await asked.final(), { error: { code: -32603, message: /did not answer/ } }, 'the waiting call ends with a clear error')
    const deleted = await raw.send('DELETE', '/mcp', { headers: sessionHeaders(sessionId) })
    t.equal(deleted.status, 503, 'DELETE cannot be told to every replica: refused, can be repeated')
    t.match(deleted.json.error, { code: -32603, message: /Shared state \(Redis\) is unreachable/ })
    const back = gateways.map((gw) => gw.lines.length)
    await redis.start()
    await Promise.all(gateways.map((gw, i) => gw.waitForLine(/redis: connected/, back[i])))
    const again = await askName(lb.url, agent, sessionId)
    const answered = await raw.post({ jsonrpc: '2.0', id: again.request.id, result: { action: 'accept', content: { name: 'Ada' } } }, sessionHeaders(sessionId))
    t.not(answered.headers['x-replica'], again.replica)
    t.equal(answered.status, 202, 'the hand-off works again')
    t.match(await again.final(), { result: { content: [{ text: /Hello, Ada!/ }] } })
    t.equal((await raw.send('DELETE', '/mcp', { headers: sessionHeaders(sessionId) })).status, 204, 'DELETE works again')
  })

  t.test('SIGKILL one replica under load: only its in-flight calls fail; the others and new calls complete', async (t) => {
    const calls = await Promise.all(Array.from({ length: 9 }, (_, i) => slowCall(lb.url, agent, i)))
    const victim = addresses[0]
    const onVictim = calls.filter((call) => call.replica === victim)
    t.equal(onVictim.length, 3, 'round robin: three of nine calls on the victim')
    gateways[0].child.kill('SIGKILL')
    const outcomes = await Promise.all(calls.map((call) => call.final()))
    calls.forEach((call, i) => {
      if (call.replica === victim) t.match(outcomes[i], { cut: true }, `call ${i} on the killed replica: its stream is cut`)
      else t.match(outcomes[i], { result: { content: [{ text: 'done' }] } }, `call ${i} on ${call.replica}: done`)
    })
    for (let i = 0; i < 6; i++) {
      const reply = await raw.rpc('tools/call', { name: 'a__echo', arguments: { text: `after${i}` } })
      t.equal(reply.status, 200)
      t.match(reply.json.result, { content: [{ text: `alpha:after${i}` }] }, `new call ${i} served by ${String(reply.headers['x-replica'])}`)
      t.not(reply.headers['x-replica'], victim)
    }
  })
}

interface Asked {
  replica: string
  request: { id: string; method: string }
  final(): Promise<any>
}

// A legacy tools/call whose backend asks for input: resolves once the elicitation request arrived.
async function askName(url: string, agent: Agent, sessionId: string): Promise<Asked> {
  const response = await request(url, {
    dispatcher: agent, method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...sessionHeaders(sessionId) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'ask', method: 'tools/call', params: { name: 'a__ask-name', arguments: {} } }),
  })
  const messages = dataMessages(response.body)
  const first = await messages.next()
  // The call's own response (notifications/cancelled for unanswered requests may come first).
  const final = async (): Promise<any> => {
    for (let m = await messages.next(); !m.done; m = await messages.next()) if (m.value.id === 'ask') return m.value
    return undefined
  }
  return { replica: String(response.headers['x-replica']), request: first.value, final }
}

// A call taking a while (two progress steps 1.5 s apart): resolves once it is in flight (its first
// progress arrived); `final` is its last message, or { cut: true } when its stream broke.
async function slowCall(url: string, agent: Agent, n: number): Promise<{ replica: string; final(): Promise<any> }> {
  const response = await request(url, {
    dispatcher: agent, method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'a__progress' },
    body: JSON.stringify({
      jsonrpc: '2.0', id: n, method: 'tools/call',
      params: { name: 'a__progress', arguments: { steps: 2, delayMs: 1_500 }, _meta: { ...MODERN_META, progressToken: `p${n}` } },
    }),
  })
  const messages = dataMessages(response.body)
  await messages.next()
  const final = async (): Promise<any> => {
    try {
      let last: any
      for (let m = await messages.next(); !m.done; m = await messages.next()) last = m.value
      return last?.id === n ? last : { cut: true }
    } catch {
      return { cut: true }
    }
  }
  return { replica: String(response.headers['x-replica']), final }
}

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'faults', version: '1.0.0' },
}

// The JSON messages of an SSE body (the empty priming event and comments skipped).
async function* dataMessages(body: AsyncIterable<Buffer>): AsyncGenerator<any> {
  let buffer = ''
  for await (const chunk of body) {
    buffer += chunk.toString('utf8')
    let end: number
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const event = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const data = event.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).join('')
      if (data !== '') yield JSON.parse(data)
    }
  }
}
