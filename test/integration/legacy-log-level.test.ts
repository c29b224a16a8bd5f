// Log levels toward 2025-11-25 backends (G7, LOG-2, LOG-7): the gateway sets each legacy session to
// `debug` with logging/setLevel once, after notifications/initialized, and filters every log by the
// level of the client whose request it belongs to. Real peers: the published server-everything over
// stdio and over HTTP, raw 2026-07-28 clients reading every message of a reply.
//
// What a client sees:
// - stdio: a log written while exactly one call is in flight belongs to that call: delivered when it
//   set a logLevel (and the log is at least that severe), dropped when it did not. With two or more
//   calls in flight the log names no request and is dropped (logged at debug); with none it belongs
//   to no request: a modern client never sees it (LOG-7), a 2025-11-25 session's GET stream does
//   (legacy-session-logs.test.ts).
// - HTTP: server-everything sends every log outside any request (SDK v1 `sendLoggingMessage` has no
//   related request id), so they go to the session's GET stream, never to a POST reply; a modern
//   client never sees them (LOG-7). The level is still set, so a backend that logs on a call's own
//   stream is heard.
import t from 'tap'
import { startEverythingHttp } from '../helpers/everything-http.ts'
import { buildRpc, createRawClient, META, readSseEvents, type RawMcpClient } from '../helpers/mcp-client.ts'
import { startGateway } from '../helpers/start-gateway.ts'

const EVERYTHING = new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url).pathname
const DEBUG = { [META.logLevel]: 'debug' }
const ELICITATION = { [META.clientCapabilities]: { elicitation: {} } }

const everythingHttp = await startEverythingHttp(t)
const gateway = await startGateway(t, {
  backends: [
    { name: 'ev', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], env: {}, namespace: 'ev' },
    { name: 'evh', transport: 'http', url: everythingHttp.url, namespace: 'evh' },
  ],
}, { logs: true })
const raw = createRawClient(t, gateway.url)
// server-everything's own roots/list, 350 ms after initialize, is refused while no call is in flight.
await gateway.logs!.waitFor((record) => record.msg === 'stdio backend request refused' && record.rpcMethod === 'roots/list')

async function* chunksOf(text: string): AsyncGenerator<string> {
  yield text
}

// One tools/call; every message of its reply: the SSE events in order, or the one JSON body.
async function callMessages(client: RawMcpClient, params: Record<string, unknown>, meta: Record<string, unknown> = {}): Promise<any[]> {
  const { body, headers } = buildRpc('tools/call', { arguments: {}, ...params }, { id: String(params.name), meta })
  const reply = await client.send('POST', client.url.pathname, { headers, body: JSON.stringify(body) })
  if (!String(reply.headers['content-type']).startsWith('text/event-stream')) return [reply.json]
  const messages: any[] = []
  for await (const event of readSseEvents(chunksOf(reply.text))) messages.push(event.message)
  return messages
}

function logsIn(messages: any[]): any[] {
  return messages.filter((message) => message.method === 'notifications/message')
}

async function toggle(tool: string, meta: Record<string, unknown> = {}): Promise<any[]> {
  return callMessages(raw, { name: tool }, meta)
}

t.test('logging/setLevel debug → sent to each legacy session that declares logging (stdio and HTTP), accepted', async (t) => {
  for (const backend of ['ev', 'evh']) {
    const record = await gateway.logs!.waitFor((entry) => entry.msg === 'legacy backend log level set' && entry.backend === backend)
    t.match(record, { level: 30, logLevel: 'debug' }, `${backend}: accepted`)
  }
})

t.test('stdio: toggle-simulated-logging without a logLevel → no log; with logLevel debug → its log before the result', async (t) => {
  const silent = await toggle('ev__toggle-simulated-logging')
  t.same(logsIn(silent), [], 'no logLevel → none (LOG-2)')
  t.match(silent.at(-1), { id: 'ev__toggle-simulated-logging', result: { content: [{ text: /^Started simulated/ }] } })
  t.match((await toggle('ev__toggle-simulated-logging')).at(-1), { result: { content: [{ text: /^Stopped simulated/ }] } })

  const heard = await toggle('ev__toggle-simulated-logging', DEBUG)
  t.ok(logsIn(heard).length >= 1, 'the log written during the call reached its client')
  t.match(logsIn(heard)[0], { jsonrpc: '2.0', params: { level: String, data: /-level message|level-message/ } })
  t.match(heard.at(-1), { id: 'ev__toggle-simulated-logging', result: { content: [{ text: /^Started simulated/ }] } }, 'then the result')
  await toggle('ev__toggle-simulated-logging')
})

t.test('stdio: a log written while two calls are in flight names neither → dropped for both', async (t) => {
  // A call held open by the gateway (bridged elicitation) stays in flight on the child.
  const first = await callMessages(raw, { name: 'ev__trigger-elicitation-request' }, { ...ELICITATION, ...DEBUG })
  const held = first[0].result
  t.equal(held.resultType, 'input_required')
  const toggled = await toggle('ev__toggle-simulated-logging', DEBUG)
  t.same(logsIn(toggled), [], 'two candidates → no log for the toggling client')
  t.match(toggled.at(-1), { result: { content: [{ text: /^Started simulated/ }] } })
  const [key] = Object.keys(held.inputRequests)
  const done = await callMessages(raw, { name: 'ev__trigger-elicitation-request', inputResponses: { [key]: { action: 'decline' } }, requestState: held.requestState },
    { ...ELICITATION, ...DEBUG })
  t.same(logsIn(done), [], 'nor for the held call')
  t.match(done.at(-1), { result: { resultType: 'complete', content: [{ text: /declined/ }] } })
  await toggle('ev__toggle-simulated-logging')
})

t.test('HTTP: toggle-simulated-logging with logLevel debug → no log on the reply (server-everything logs on its GET stream)', async (t) => {
  const messages = await toggle('evh__toggle-simulated-logging', DEBUG)
  t.same(logsIn(messages), [], 'not tied to the request → dropped (LOG-7)')
  t.match(messages.at(-1), { result: { content: [{ text: /^Started simulated/ }] } })
  t.match((await toggle('evh__toggle-simulated-logging', DEBUG)).at(-1), { result: { content: [{ text: /^Stopped simulated/ }] } })
})
