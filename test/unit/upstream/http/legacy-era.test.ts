import t from 'tap'
import type { UpstreamReply } from '../../../../src/upstream/backend.ts'
import { checkInitializeReply, decideHttpEra, type HttpProbeOutcome } from '../../../../src/upstream/http/legacy-era.ts'

const discoverResult = { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, ttlMs: 0, cacheScope: 'private' }
const error = (code: number, data?: unknown): UpstreamReply => ({ ok: false, error: { code, message: 'x', data } })

const cases: Array<{ name: string; outcome: HttpProbeOutcome; kind: string; detail?: RegExp }> = [
  { name: '200 DiscoverResult → modern', outcome: { status: 200, reply: { ok: true, result: discoverResult } }, kind: 'modern' },
  { name: '200 DiscoverResult without a common version → down', outcome: { status: 200, reply: { ok: true, result: { ...discoverResult, supportedVersions: ['2027-01-01'] } } }, kind: 'down', detail: /in common/ },
  { name: '200 result that is not a DiscoverResult → legacy', outcome: { status: 200, reply: { ok: true, result: {} } }, kind: 'legacy' },
  { name: '400 -32022 with data.supported → down, no fallback', outcome: { status: 400, reply: error(-32022, { supported: ['2027-01-01'] }) }, kind: 'down', detail: /modern backend/ },
  { name: '400 -32022 without data.supported → legacy', outcome: { status: 400, reply: error(-32022) }, kind: 'legacy' },
  { name: '400 -32021 → down, no fallback', outcome: { status: 400, reply: error(-32021) }, kind: 'down' },
  { name: '400 -32020 → down, no fallback', outcome: { status: 400, reply: error(-32020) }, kind: 'down' },
  { name: '404 -32601 → legacy (ERA-4)', outcome: { status: 404, reply: error(-32601) }, kind: 'legacy', detail: /-32601/ },
  { name: '200 -32601 → legacy', outcome: { status: 200, reply: error(-32601) }, kind: 'legacy' },
  { name: '200 -32602 → legacy', outcome: { status: 200, reply: error(-32602) }, kind: 'legacy' },
  { name: '400 -32000 "Server not initialized" (SDK 1.x) → legacy', outcome: { status: 400, reply: error(-32000) }, kind: 'legacy' },
  { name: '400 empty body → legacy', outcome: { status: 400, reply: undefined }, kind: 'legacy' },
  { name: '404 empty body → legacy', outcome: { status: 404, reply: undefined }, kind: 'legacy' },
  { name: '405 empty body → legacy', outcome: { status: 405, reply: undefined }, kind: 'legacy' },
  { name: '401 empty body → down (auth, not an era answer)', outcome: { status: 401, reply: undefined }, kind: 'down' },
  { name: '503 -32603 → down, re-probe later', outcome: { status: 503, reply: error(-32603) }, kind: 'down' },
  { name: '500 empty body → down', outcome: { status: 500, reply: undefined }, kind: 'down' },
]

t.test('decideHttpEra (ERA-1, ERA-4)', async (t) => {
  for (const { name, outcome, kind, detail } of cases) {
    const verdict = decideHttpEra(outcome)
    t.equal(verdict.kind, kind, name)
    if (detail) t.match(JSON.stringify(verdict), detail, `${name}: detail`)
  }
  t.same(decideHttpEra(cases[0].outcome), { kind: 'modern', capabilities: { tools: {} } }, 'modern carries the capabilities')
})

t.test('checkInitializeReply (LEGACY-C1)', async (t) => {
  t.same(checkInitializeReply({ ok: true, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} } } }),
    { ok: true, protocolVersion: '2025-11-25', capabilities: { tools: {} } }, '2025-11-25 → ok with its capabilities')
  t.same(checkInitializeReply({ ok: true, result: { protocolVersion: '2025-06-18' } }),
    { ok: true, protocolVersion: '2025-06-18', capabilities: {} }, 'older legacy version → ok, capabilities {}')
  t.match(checkInitializeReply({ ok: true, result: { protocolVersion: '2024-11-05' } }), { ok: false, reason: /unsupported protocol version/ }, '2024-11-05 → refused')
  t.match(checkInitializeReply(error(-32600)), { ok: false, reason: /initialize failed/ }, 'error → refused')
})
