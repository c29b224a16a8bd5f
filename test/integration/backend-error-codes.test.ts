// A backend's JSON-RPC error codes in the range 2026-07-28 reserves (ERR-3, ERR-5, LEGACY-16), on
// real sockets: a node:http backend answers calls with -32042 (2025-11-25 "URL elicitation
// required"), an undefined -32050, a defined -32021, and -32001 (outside the range). A modern client
// gets -32603 for the first two, message and data kept; a 2025-11-25 session gets each as sent.
// Before: every code was passed on to modern clients as it was.
import t from 'tap'
import { legacyRpc, openRawSession } from '../helpers/legacy-client.ts'
import { createRawClient } from '../helpers/mcp-client.ts'
import { startRecordingBackend } from '../helpers/recording-backend.ts'
import { startGateway } from '../helpers/start-gateway.ts'

const URL_ELICITATION = { code: -32042, message: 'This request requires more information.', data: { elicitations: [{ mode: 'url', elicitationId: 'e1', url: 'https://example.invalid/authorize', message: 'Sign in' }] } }
const UNDEFINED = { code: -32050, message: 'made up' }
const MISSING_CAPABILITY = { code: -32021, message: 'needs sampling', data: { requiredCapabilities: { sampling: {} } } }
const LEGACY_RANGE = { code: -32001, message: 'timed out, SDK style' }
const failing = (name: string, error: Record<string, unknown>) => ({ name, inputSchema: { type: 'object' }, error })
const backend = await startRecordingBackend(t, [
  failing('url', URL_ELICITATION), failing('undefined', UNDEFINED), failing('capability', MISSING_CAPABILITY), failing('legacy-range', LEGACY_RANGE),
])
const gateway = await startGateway(t, { backends: [{ name: 'e', transport: 'http', url: backend.url, namespace: 'e' }] })
const raw = createRawClient(t, gateway.url)

t.test('2026-07-28 client: undefined codes in -32020…-32099 → -32603 with the message and data; defined and other codes as sent', async (t) => {
  const call = (tool: string) => raw.rpc('tools/call', { name: `e__${tool}`, arguments: {} }, { id: tool })
  const url = await call('url')
  t.equal(url.status, 200, 'in band')
  t.same(url.json.error, { ...URL_ELICITATION, code: -32603 }, '-32042 never reaches a modern client (ERR-5)')
  t.same((await call('undefined')).json.error, { ...UNDEFINED, code: -32603 }, 'an undefined -32050 → -32603 (ERR-3)')
  const capability = await call('capability')
  t.equal(capability.status, 400, '-32021 keeps its 400 (ERR-2)')
  t.same(capability.json.error, MISSING_CAPABILITY, 'a defined code as sent')
  t.same((await call('legacy-range')).json.error, LEGACY_RANGE, 'outside the range: as sent')
})

t.test('2025-11-25 session: each error as the backend sent it (-32042 is a 2025-11-25 code)', async (t) => {
  const { sessionId } = await openRawSession(raw)
  t.same((await legacyRpc(raw, sessionId, 'tools/call', { name: 'e__url', arguments: {} }, 'url')).json.error, URL_ELICITATION)
  t.same((await legacyRpc(raw, sessionId, 'tools/call', { name: 'e__undefined', arguments: {} }, 'undefined')).json.error, UNDEFINED)
})
