// The 2025-11-25 initialize handshake both ways: what the gateway offers a legacy backend and the check
// of its answer (LEGACY-C1); the gateway's own answer to a legacy client (LEGACY-2).
import t from 'tap'
import type { ProbeReply } from '../../../../src/protocol/era.ts'
import { buildInitializeParams, buildInitializeResult, checkInitializeReply, readInitializeParams, LEGACY_CLIENT_CAPABILITIES, type InitializeVerdict } from '../../../../src/protocol/legacy/initialize.ts'

const cases: Array<{ name: string; reply: ProbeReply; verdict: InitializeVerdict }> = [
  { name: '2025-11-25 with capabilities → ok, its capabilities', reply: { ok: true, result: { protocolVersion: '2025-11-25', capabilities: { prompts: {} }, serverInfo: { name: 's', version: '1' } } },
    verdict: { ok: true, protocolVersion: '2025-11-25', capabilities: { prompts: {} } } },
  { name: '2025-06-18 without capabilities → ok, capabilities {}', reply: { ok: true, result: { protocolVersion: '2025-06-18' } },
    verdict: { ok: true, protocolVersion: '2025-06-18', capabilities: {} } },
  { name: '2025-03-26 with capabilities that are not an object → ok, capabilities {}', reply: { ok: true, result: { protocolVersion: '2025-03-26', capabilities: [] } },
    verdict: { ok: true, protocolVersion: '2025-03-26', capabilities: {} } },
  { name: '2024-11-05 → refused (a version the gateway does not speak)', reply: { ok: true, result: { protocolVersion: '2024-11-05', capabilities: {} } },
    verdict: { ok: false, reason: 'initialize negotiated unsupported protocol version "2024-11-05"' } },
  { name: '2026-07-28 → refused (not a legacy version)', reply: { ok: true, result: { protocolVersion: '2026-07-28' } },
    verdict: { ok: false, reason: 'initialize negotiated unsupported protocol version "2026-07-28"' } },
  { name: 'no protocolVersion → refused', reply: { ok: true, result: {} }, verdict: { ok: false, reason: 'initialize negotiated unsupported protocol version undefined' } },
  { name: 'JSON-RPC error → refused with its message and code', reply: { ok: false, error: { code: -32603, message: 'boom' } }, verdict: { ok: false, reason: 'initialize failed: boom (-32603)' } },
  { name: 'gone → refused, naming what happened', reply: { ok: 'gone', detail: 'child exited with code 3' }, verdict: { ok: false, reason: 'child exited with code 3 during initialize' } },
  { name: 'timeout → refused', reply: { ok: 'timeout', detail: 'no answer within 5 ms' }, verdict: { ok: false, reason: 'initialize: no answer within 5 ms' } },
  { name: 'invalid response → refused', reply: { ok: 'invalid', detail: 'result is not an object' }, verdict: { ok: false, reason: 'initialize: result is not an object' } },
]

t.test('checkInitializeReply (LEGACY-C1)', async (t) => {
  for (const entry of cases) t.same(checkInitializeReply(entry.reply), entry.verdict, entry.name)
})

t.test('buildInitializeParams → 2025-11-25, the bridged capabilities (G8), the gateway identity', async (t) => {
  const clientInfo = { name: 'gw', version: '9' }
  t.same(buildInitializeParams(clientInfo), { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} }, clientInfo })
  t.ok(Object.isFrozen(LEGACY_CLIENT_CAPABILITIES), 'the offered capabilities are frozen')
})

const CLIENT = { name: 'c', version: '1' }

t.test('readInitializeParams', async (t) => {
  const cases: Array<[string, Record<string, unknown> | undefined, unknown]> = [
    ['2025-11-25 → itself', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT }, { ok: true, params: { requested: '2025-11-25', version: '2025-11-25', capabilities: {}, clientInfo: CLIENT } }],
    ['2025-06-18 → itself', { protocolVersion: '2025-06-18', capabilities: { roots: {} }, clientInfo: CLIENT }, { ok: true, params: { version: '2025-06-18', capabilities: { roots: {} } } }],
    ['2024-11-05 → the newest', { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: CLIENT }, { ok: true, params: { requested: '2024-11-05', version: '2025-11-25' } }],
    ['no params', undefined, { ok: false, detail: /protocolVersion/ }],
    ['version not a string', { protocolVersion: 1, capabilities: {}, clientInfo: CLIENT }, { ok: false, detail: /protocolVersion/ }],
    ['no capabilities', { protocolVersion: '2025-11-25', clientInfo: CLIENT }, { ok: false, detail: /capabilities/ }],
    ['no clientInfo', { protocolVersion: '2025-11-25', capabilities: {} }, { ok: false, detail: /clientInfo/ }],
    ['clientInfo without version', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c' } }, { ok: false, detail: /clientInfo/ }],
  ]
  for (const [name, params, expected] of cases) t.match(readInitializeParams(params), expected, name)
})

t.test('buildInitializeResult → protocolVersion, capabilities, serverInfo (name and version only)', async (t) => {
  t.same(buildInitializeResult('2025-06-18', { tools: {} }, { name: 'gw', version: '1.2.3' }), {
    protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'gw', version: '1.2.3' },
  })
})
