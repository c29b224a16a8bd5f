import t from 'tap'
import type { JsonObject } from '../../../../src/protocol/jsonrpc.ts'
import type { ProbeChannel, ProbeReply } from '../../../../src/upstream/stdio/era-probe.ts'
import { buildModernMeta, classifyDiscoverReply, classifyInitializeReply, probeEra } from '../../../../src/upstream/stdio/era-probe.ts'

const discoverResult = { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, ttlMs: 0, cacheScope: 'private' }

const discoverCases: Array<{ name: string; reply: ProbeReply; outcome: JsonObject }> = [
  { name: 'DiscoverResult with 2026-07-28 → modern, its capabilities', reply: { ok: true, result: discoverResult },
    outcome: { kind: 'decided', verdict: { up: true, era: 'modern', protocolVersion: '2026-07-28', capabilities: { tools: {} }, note: 'DiscoverResult' } } },
  { name: 'DiscoverResult without a common version → modern, down', reply: { ok: true, result: { ...discoverResult, supportedVersions: ['2027-01-01'] } },
    outcome: { kind: 'decided', verdict: { up: false, era: 'modern' } } },
  { name: 'result that is not a DiscoverResult → legacy', reply: { ok: true, result: {} }, outcome: { kind: 'legacy' } },
  { name: '-32022 with data.supported → modern, no initialize', reply: { ok: false, error: { code: -32022, message: 'x', data: { supported: ['2027-01-01'], requested: '2026-07-28' } } },
    outcome: { kind: 'decided', verdict: { up: false, era: 'modern' } } },
  { name: '-32022 naming our version → modern, up', reply: { ok: false, error: { code: -32022, message: 'x', data: { supported: ['2026-07-28'] } } },
    outcome: { kind: 'decided', verdict: { up: true, era: 'modern', protocolVersion: '2026-07-28', capabilities: {} } } },
  { name: '-32022 without data.supported → legacy', reply: { ok: false, error: { code: -32022, message: 'x' } }, outcome: { kind: 'legacy' } },
  { name: '-32021 → modern', reply: { ok: false, error: { code: -32021, message: 'x' } },
    outcome: { kind: 'decided', verdict: { up: true, era: 'modern' } } },
  { name: '-32601 → legacy', reply: { ok: false, error: { code: -32601, message: 'Method not found' } }, outcome: { kind: 'legacy', note: 'server/discover answered error -32601' } },
  { name: '-32602 → legacy', reply: { ok: false, error: { code: -32602, message: 'Invalid params' } }, outcome: { kind: 'legacy' } },
  { name: '-32000 → legacy (not keyed on one code)', reply: { ok: false, error: { code: -32000, message: 'Not initialized' } }, outcome: { kind: 'legacy' } },
  { name: 'no answer in time → legacy', reply: { ok: 'timeout', detail: 'no answer within 10 ms' }, outcome: { kind: 'legacy' } },
  { name: 'invalid response → legacy', reply: { ok: 'invalid', detail: 'result is not an object' }, outcome: { kind: 'legacy' } },
  { name: 'child gone → down, era unknown', reply: { ok: 'gone', detail: 'exited with code 1' },
    outcome: { kind: 'decided', verdict: { up: false, era: 'unknown', reason: 'child exited with code 1 during the era probe' } } },
]

t.test('classifyDiscoverReply (STDIO-11)', async (t) => {
  for (const entry of discoverCases) t.match(classifyDiscoverReply(entry.reply), entry.outcome, entry.name)
})

const initializeCases: Array<{ name: string; reply: ProbeReply; verdict: JsonObject }> = [
  { name: '2025-11-25 → legacy, up, its capabilities', reply: { ok: true, result: { protocolVersion: '2025-11-25', capabilities: { prompts: {} }, serverInfo: { name: 's', version: '1' } } },
    verdict: { up: true, era: 'legacy', protocolVersion: '2025-11-25', capabilities: { prompts: {} } } },
  { name: '2025-06-18 → legacy, up', reply: { ok: true, result: { protocolVersion: '2025-06-18' } },
    verdict: { up: true, era: 'legacy', protocolVersion: '2025-06-18', capabilities: {} } },
  { name: 'unknown version → down (LEGACY-C1)', reply: { ok: true, result: { protocolVersion: '2024-11-05', capabilities: {} } },
    verdict: { up: false, era: 'legacy', reason: /unsupported protocol version "2024-11-05"/ } },
  { name: 'error → down', reply: { ok: false, error: { code: -32603, message: 'boom' } }, verdict: { up: false, reason: 'initialize failed: boom (-32603)' } },
  { name: 'gone → down', reply: { ok: 'gone', detail: 'exited with code 3' }, verdict: { up: false, reason: 'child exited with code 3 during initialize' } },
  { name: 'timeout → down', reply: { ok: 'timeout', detail: 'no answer within 5 ms' }, verdict: { up: false, reason: 'initialize: no answer within 5 ms' } },
]

t.test('classifyInitializeReply (LEGACY-C1)', async (t) => {
  for (const entry of initializeCases) t.match(classifyInitializeReply(entry.reply, 'note'), entry.verdict, entry.name)
})

function scriptedChannel(replies: Record<string, ProbeReply>) {
  const sent: Array<{ method: string; params?: JsonObject }> = []
  const channel: ProbeChannel = {
    request: async (method, params) => { sent.push({ method, params }); return replies[method] },
    notify: (method, params) => { sent.push({ method, params }) },
  }
  return { channel, sent }
}

const clientInfo = { name: 'gw', version: '9' }

t.test('probeEra: modern server → discover only', async (t) => {
  const { channel, sent } = scriptedChannel({ 'server/discover': { ok: true, result: discoverResult } })
  t.match(await probeEra(channel, clientInfo), { up: true, era: 'modern' })
  t.same(sent, [{ method: 'server/discover', params: { _meta: buildModernMeta(clientInfo) } }])
  t.same(buildModernMeta(clientInfo), {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': clientInfo,
  })
})

t.test('probeEra: legacy server → initialize, then notifications/initialized', async (t) => {
  const { channel, sent } = scriptedChannel({
    'server/discover': { ok: 'timeout', detail: 'no answer within 1 ms' },
    initialize: { ok: true, result: { protocolVersion: '2025-11-25', capabilities: {} } },
  })
  t.match(await probeEra(channel, clientInfo), { up: true, era: 'legacy', note: 'server/discover: no answer within 1 ms' })
  t.same(sent.map((entry) => entry.method), ['server/discover', 'initialize', 'notifications/initialized'])
  // G8 bridging: the capabilities the gateway can relay to a modern client that declares them.
  const capabilities = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} }
  t.same(sent[1].params, { protocolVersion: '2025-11-25', capabilities, clientInfo })
})

t.test('probeEra: initialize refused → no notifications/initialized', async (t) => {
  const { channel, sent } = scriptedChannel({
    'server/discover': { ok: false, error: { code: -32601, message: 'nope' } },
    initialize: { ok: false, error: { code: -32602, message: 'bad' } },
  })
  t.match(await probeEra(channel, clientInfo), { up: false, era: 'legacy' })
  t.same(sent.map((entry) => entry.method), ['server/discover', 'initialize'])
})
