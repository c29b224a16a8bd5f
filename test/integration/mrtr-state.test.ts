// Multi round-trip requests through the gateway (MRTR-*, G8) on real sockets: two SDK v2 backends as
// child processes (namespaces `a` and `b`) behind one gateway. The fixture's `ask-name` tool elicits a
// name with its own requestState and echoes the state it gets back; it reports every call it serves,
// so "nothing was forwarded" is checked on its event stream, not by waiting.
import t from 'tap'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import type { CallToolResult } from '@modelcontextprotocol/client'
import { startFixture, type FixtureProcess } from '../helpers/backend-process.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { META, PROTOCOL_VERSION, createRawClient, metricValue, type RawReply } from '../helpers/mcp-client.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname
const INVALID_PARAMS = -32602
// What the fixture mints as requestState (test/fixtures/sdk-http-backend.ts `askState`).
const backendState = (name: string): string => `ask-name.${name}:ü+/== "{\\"round\\":1}" ☃ end.`
const ELICITATION = { [META.clientCapabilities]: { elicitation: {} } }

const [alpha, beta] = await Promise.all([
  startFixture(t, BACKEND, ['--name', 'alpha', '--extras']),
  startFixture(t, BACKEND, ['--name', 'beta', '--extras']),
])
const gateway = await startGateway(t, {
  backends: [
    { name: 'a', transport: 'http', url: alpha.url, namespace: 'a' },
    { name: 'b', transport: 'http', url: beta.url, namespace: 'b' },
  ],
})
const raw = createRawClient(t, gateway.url)

function firstText(result: CallToolResult): string {
  const block = result.content[0]
  return block?.type === 'text' ? block.text : ''
}

// The state the backend saw on its next ask-name call (null: none).
async function nextCallState(fixture: FixtureProcess): Promise<unknown> {
  return (await fixture.waitForEvent('called', (event) => event.tool === 'ask-name')).requestState
}

// First round, raw: the input_required result with the gateway-sealed state.
async function askName(name: string, id: string): Promise<any> {
  const reply = await raw.rpc('tools/call', { name, arguments: {} }, { id, meta: ELICITATION })
  if (reply.status !== 200 || reply.json?.result === undefined) throw new Error(`${name}: HTTP ${reply.status} ${reply.text}`)
  return reply.json.result
}

function retry(name: string, id: string, requestState: unknown): Promise<RawReply> {
  const inputResponses = { user_name: { action: 'accept', content: { name: 'Bob' } } }
  return raw.rpc('tools/call', { name, arguments: {}, inputResponses, requestState }, { id, meta: ELICITATION })
}

t.test('SDK v2 client pinned to 2026-07-28 → elicitation answered, backend gets its own state byte for byte', async (t) => {
  const client = new Client({ name: 'mrtr-state-tests', version: '1.0.0' }, {
    versionNegotiation: { mode: { pin: PROTOCOL_VERSION } },
    capabilities: { elicitation: {} },
  })
  const asked: string[] = []
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(String(request.params.message))
    return { action: 'accept', content: { name: 'Ada' } }
  })
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)))
  t.teardown(() => client.close())
  const result = (await client.callTool({ name: 'a__ask-name', arguments: {} })) as CallToolResult
  t.same(asked, ['What is your name?'], 'the client handled one elicitation')
  t.same(JSON.parse(firstText(result)), { greeting: 'Hello, Ada!', requestState: backendState('alpha') })
  t.equal(await nextCallState(alpha), null, 'first round: no state')
  t.equal(await nextCallState(alpha), backendState('alpha'), 'retry: the backend\'s own state, byte for byte')
})

t.test('raw round trip → the client sees a sealed state, the retry (new id) reaches the same backend', async (t) => {
  const first = await askName('b__ask-name', 'round-1')
  t.equal(first.resultType, 'input_required')
  t.match(first.inputRequests, { user_name: { method: 'elicitation/create', params: { message: 'What is your name?' } } })
  t.type(first.requestState, 'string')
  t.not(first.requestState, backendState('beta'), 'the backend\'s state never reaches the client as is')
  t.notOk('ttlMs' in first || 'cacheScope' in first, 'input_required carries no caching hints (CACHE-2)')
  t.equal(await nextCallState(beta), null)
  const second = await retry('b__ask-name', 'round-2', first.requestState)
  t.equal(second.status, 200)
  t.equal(second.json.id, 'round-2')
  t.same(JSON.parse(second.json.result.content[0].text), { greeting: 'Hello, Bob!', requestState: backendState('beta') })
  t.equal(await nextCallState(beta), backendState('beta'))
})

t.test('tampered or misbound requestState → -32602 at HTTP 200, nothing forwarded', async (t) => {
  const first = await askName('a__ask-name', 'tamper-1')
  t.equal(await nextCallState(alpha), null)
  const cases: Array<[string, string, unknown]> = [
    ['appended "-x"', 'a__ask-name', `${first.requestState}-x`],
    ['bound to another backend\'s tool', 'b__ask-name', first.requestState],
    ['not a string', 'a__ask-name', { state: first.requestState }],
  ]
  for (const [label, name, state] of cases) {
    const reply = await retry(name, label, state)
    t.equal(reply.status, 200, `${label}: in-band error`)
    t.equal(reply.json.id, label, `${label}: id echoed`)
    t.equal(reply.json.error?.code, INVALID_PARAMS, `${label}: -32602`)
  }
  // The untouched state still works, and it is the very next call either backend sees.
  const ok = await retry('a__ask-name', 'tamper-ok', first.requestState)
  t.same(JSON.parse(ok.json.result.content[0].text).requestState, backendState('alpha'))
  t.equal(await nextCallState(alpha), backendState('alpha'), 'no tampered retry reached backend a')
  const probe = await askName('b__ask-name', 'tamper-probe')
  t.equal(probe.resultType, 'input_required')
  t.equal(await nextCallState(beta), null, 'no misbound retry reached backend b')
})

// MRTR-9: single use. A state whose round completed is refused on replay (-32602), counted as a
// limit refusal, and never reaches the backend again.
t.test('requestState replayed after its round completed → -32602, nothing forwarded, counted', async (t) => {
  const first = await askName('a__ask-name', 'replay-1')
  t.equal(await nextCallState(alpha), null)
  const used = await retry('a__ask-name', 'replay-2', first.requestState)
  t.same(JSON.parse(used.json.result.content[0].text).requestState, backendState('alpha'), 'the first retry completes the round')
  t.equal(await nextCallState(alpha), backendState('alpha'))
  const replay = await retry('a__ask-name', 'replay-3', first.requestState)
  t.equal(replay.status, 200, 'in-band error')
  t.equal(replay.json.id, 'replay-3')
  t.equal(replay.json.error?.code, INVALID_PARAMS, '-32602')
  t.match(replay.json.error?.message, /already used/)
  const probe = await askName('a__ask-name', 'replay-probe')
  t.equal(probe.resultType, 'input_required')
  t.equal(await nextCallState(alpha), null, 'the replay never reached backend a: its next call is the probe')
  const metrics = (await raw.send('GET', '/metrics')).text
  t.equal(metricValue(metrics, 'mcp_gateway_limit_refusals_total', { limit: 'state_replay', backend: 'a' }), 1)
})
