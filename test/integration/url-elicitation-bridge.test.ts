// A 2025-11-25 backend's -32042 "URL elicitation required" through the gateway (ERR-5, LEGACY-C5):
// the legacy stdio fixture's `needs-url` tool refuses every odd-numbered call with -32042 naming a
// URL and answers the even-numbered one. A 2025-11-25 session gets the -32042 as sent; the SDK v2
// client pinned to 2026-07-28 and declaring URL elicitation gets an input round (the gateway's own
// state) and its retry sends the call again; a client without URL elicitation gets -32603, the
// URL still in its data. The tool's call count makes each step's expected call number explicit.
// Before: the -32042 reached every client unchanged.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import type { CallToolResult } from '@modelcontextprotocol/client'
import t from 'tap'
import { legacyRpc, openRawSession } from '../helpers/legacy-client.ts'
import { createRawClient, META, PROTOCOL_VERSION } from '../helpers/mcp-client.ts'
import { startGateway } from '../helpers/start-gateway.ts'

const LEGACY_FIXTURE = new URL('../fixtures/stdio-legacy.ts', import.meta.url).pathname
// As the backend sends it (2025-11-25), and as a modern client gets it (2026-07-28: no elicitationId).
const ELICITATION = (n: number) => ({ mode: 'url', elicitationId: `e${n}`, url: 'https://example.invalid/connect', message: 'Connect your account' })
const URL_REQUEST = { mode: 'url', url: 'https://example.invalid/connect', message: 'Connect your account' }
const gateway = await startGateway(t, {
  backends: [{ name: 'lg', transport: 'stdio', command: process.execPath, args: [LEGACY_FIXTURE], namespace: 'lg' }],
})
const raw = createRawClient(t, gateway.url)
const text = (result: CallToolResult): string => result.content.map((part) => (part.type === 'text' ? part.text : '')).join('')

t.test('2025-11-25 session: -32042 as the backend sent it, then its own retry answers (calls 1, 2)', async (t) => {
  const { sessionId } = await openRawSession(raw, { elicitation: { url: {} } })
  const refused = await legacyRpc(raw, sessionId, 'tools/call', { name: 'lg__needs-url', arguments: {} }, 'first')
  t.match(refused.json.error, { code: -32042, data: { elicitations: [ELICITATION(1)] } })
  const again = await legacyRpc(raw, sessionId, 'tools/call', { name: 'lg__needs-url', arguments: {} }, 'second')
  t.equal(again.json.result?.content[0].text, 'connected after 2 calls')
})

t.test('SDK v2 client declaring URL elicitation: an elicitation/create round, then the call sent again (calls 3, 4)', async (t) => {
  const client = new Client({ name: 'url-elicitation-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: PROTOCOL_VERSION } }, capabilities: { elicitation: { url: {} } } })
  const asked: Array<Record<string, unknown>> = []
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params as Record<string, unknown>)
    return { action: 'accept' }
  })
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)))
  t.teardown(() => client.close())
  const result = (await client.callTool({ name: 'lg__needs-url', arguments: {} })) as CallToolResult
  t.same(asked, [URL_REQUEST], 'the user was sent to the URL, once')
  t.equal(text(result), 'connected after 4 calls', 'the retry reached the backend as a new call')
})

t.test('raw: the round\'s state is the gateway\'s, single use; without URL elicitation → -32603 (calls 5, 6, 7)', async (t) => {
  const meta = { [META.clientCapabilities]: { elicitation: { url: {} } } }
  const first = await raw.rpc('tools/call', { name: 'lg__needs-url', arguments: {} }, { id: 'r1', meta })
  t.match(first.json.result, { resultType: 'input_required', inputRequests: { 'url-1': { method: 'elicitation/create', params: URL_REQUEST } } })
  t.same(Object.keys(first.json.result.inputRequests['url-1'].params).sort(), ['message', 'mode', 'url'], 'the 2026-07-28 members only')
  const requestState = first.json.result.requestState as string
  const inputResponses = { 'url-1': { action: 'accept' } }
  const retried = await raw.rpc('tools/call', { name: 'lg__needs-url', arguments: {}, inputResponses, requestState }, { id: 'r2', meta })
  t.equal(retried.json.result?.content[0].text, 'connected after 6 calls')
  const replayed = await raw.rpc('tools/call', { name: 'lg__needs-url', arguments: {}, inputResponses, requestState }, { id: 'r3', meta })
  t.equal(replayed.json.error?.code, -32602, 'the same state again → refused before the backend')
  const formOnly = await raw.rpc('tools/call', { name: 'lg__needs-url', arguments: {} }, { id: 'r4', meta: { [META.clientCapabilities]: { elicitation: {} } } })
  t.match(formOnly.json.error, { code: -32603, data: { elicitations: [ELICITATION(7)] } }, 'form mode only → -32603 with the URL in data (ERR-3)')
})
