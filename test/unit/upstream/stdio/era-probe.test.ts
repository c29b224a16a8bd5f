// Sequencing of the stdio era probe (STDIO-11, LEGACY-C1): discover, then initialize and
// notifications/initialized only on a legacy verdict. The verdicts themselves are tested in
// test/unit/protocol/era.test.ts and test/unit/protocol/legacy/initialize.test.ts.
import { mock } from 'node:test'
import t from 'tap'
import type { ProbeReply } from '../../../../src/protocol/era.ts'
import type { JsonObject } from '../../../../src/protocol/jsonrpc.ts'
import type { ProbeChannel } from '../../../../src/upstream/stdio/era-probe.ts'
import { createProbeChannel, probeEra } from '../../../../src/upstream/stdio/era-probe.ts'
import { createFakeSession } from '../../../helpers/stdio-fake-session.ts'

const discoverResult = { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, ttlMs: 0, cacheScope: 'private' }

function scriptedChannel(replies: Record<string, ProbeReply>) {
  const sent: Array<{ method: string; params?: JsonObject }> = []
  const channel: ProbeChannel = {
    request: async (method, params) => { sent.push({ method, params }); return replies[method] },
    notify: (method, params) => { sent.push({ method, params }) },
  }
  return { channel, sent }
}

const clientInfo = { name: 'gw', version: '9' }
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': clientInfo,
}

const cases: Array<{ name: string; replies: Record<string, ProbeReply>; verdict: JsonObject; sent: string[] }> = [
  { name: 'DiscoverResult → modern up, discover only', replies: { 'server/discover': { ok: true, result: discoverResult } },
    verdict: { up: true, era: 'modern', protocolVersion: '2026-07-28', capabilities: { tools: {} }, note: 'DiscoverResult' }, sent: ['server/discover'] },
  { name: '-32022 naming our version → modern up, no initialize', replies: { 'server/discover': { ok: false, error: { code: -32022, message: 'x', data: { supported: ['2026-07-28'] } } } },
    verdict: { up: true, era: 'modern', protocolVersion: '2026-07-28', capabilities: {} }, sent: ['server/discover'] },
  { name: '-32021 → modern down, no initialize', replies: { 'server/discover': { ok: false, error: { code: -32021, message: 'x' } } },
    verdict: { up: false, era: 'modern', reason: /refused by a modern backend/ }, sent: ['server/discover'] },
  { name: 'child gone → down, era not proven, no initialize', replies: { 'server/discover': { ok: 'gone', detail: 'child exited with code 1' } },
    verdict: { up: false, era: 'unknown', reason: 'child exited with code 1 during the era probe' }, sent: ['server/discover'] },
  { name: 'timeout → initialize, then notifications/initialized', replies: {
    'server/discover': { ok: 'timeout', detail: 'no answer within 1 ms' }, initialize: { ok: true, result: { protocolVersion: '2025-11-25', capabilities: {} } },
  }, verdict: { up: true, era: 'legacy', protocolVersion: '2025-11-25', note: 'server/discover: no answer within 1 ms' }, sent: ['server/discover', 'initialize', 'notifications/initialized'] },
  { name: 'initialize refused → legacy down, no notifications/initialized', replies: {
    'server/discover': { ok: false, error: { code: -32601, message: 'nope' } }, initialize: { ok: false, error: { code: -32602, message: 'bad' } },
  }, verdict: { up: false, era: 'legacy', reason: 'initialize failed: bad (-32602)' }, sent: ['server/discover', 'initialize'] },
]

t.test('probeEra: what is sent for each verdict', async (t) => {
  for (const entry of cases) {
    const { channel, sent } = scriptedChannel(entry.replies)
    t.match(await probeEra(channel, clientInfo), entry.verdict, entry.name)
    t.same(sent.map((message) => message.method), entry.sent, `${entry.name} (sent)`)
  }
})

t.test('probeEra: discover carries the modern _meta, initialize the legacy offer (G8)', async (t) => {
  const { channel, sent } = scriptedChannel({
    'server/discover': { ok: false, error: { code: -32601, message: 'nope' } },
    initialize: { ok: true, result: { protocolVersion: '2025-11-25' } },
  })
  await probeEra(channel, clientInfo)
  t.same(sent[0].params, { _meta: META })
  t.same(sent[1].params, { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} }, clientInfo })
})

t.test('createProbeChannel: reply, child gone, timeout (forgotten, not cancelled)', async (t) => {
  mock.timers.enable({ apis: ['setTimeout'] })
  t.teardown(() => mock.timers.reset())
  const fake = createFakeSession()
  let next = 0
  const channel = createProbeChannel(fake.session, () => `p-${++next}`, 100)

  const answered = channel.request('server/discover', {})
  fake.reply('p-1', { ok: true, result: { a: 1 } })
  t.same(await answered, { ok: true, result: { a: 1 } }, 'reply → passed through')

  const gone = channel.request('server/discover', {})
  fake.reply('p-2', { ok: 'gone', detail: 'exited with code 1' })
  t.same(await gone, { ok: 'gone', detail: 'child exited with code 1' }, 'gone → names the child')

  const silent = channel.request('initialize', {})
  mock.timers.tick(99)
  t.ok(fake.pending.has('p-3'), 'still waiting at 99 ms')
  mock.timers.tick(1)
  t.same(await silent, { ok: 'timeout', detail: 'no answer within 100 ms' }, '100 ms → timeout')
  t.notOk(fake.pending.has('p-3'), 'the request is forgotten')
  t.notOk(fake.written.some((entry) => entry.kind === 'notify'), 'and not cancelled (LEGACY-13)')
})
