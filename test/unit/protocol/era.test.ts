// The era classifier of the server/discover probe, every row on both transports (ERA-1, ERA-3,
// ERA-4, STDIO-11, DISC-2, VER-6).
import t from 'tap'
import { buildModernMeta, classifyDiscover, type ProbeOutcome, type ProbeReply } from '../../../src/protocol/era.ts'

const discoverResult = { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, ttlMs: 0, cacheScope: 'private' }
const error = (code: number, data?: unknown): ProbeReply => ({ ok: false, error: { code, message: 'x', data } })

const MODERN = { kind: 'modern', protocolVersion: '2026-07-28' }
const LEGACY = { kind: 'legacy' }
const DOWN_MODERN = { kind: 'down', era: 'modern' }
const DOWN_UNKNOWN = { kind: 'down', era: 'unknown' }

// What the verdict must match (strings match as substrings, as t.match does).
type Expected = Record<string, unknown>

// One row per answer; `stdio` is the verdict on stdio, `http` the verdict for each HTTP status.
interface Row {
  answer: string
  reply: ProbeReply
  stdio: Expected
  http: Array<[status: number | undefined, verdict: Expected]>
}

const rows: Row[] = [
  { answer: 'DiscoverResult with 2026-07-28', reply: { ok: true, result: discoverResult },
    stdio: { ...MODERN, capabilities: { tools: {} }, note: 'DiscoverResult' }, http: [[200, { ...MODERN, capabilities: { tools: {} } }]] },
  { answer: 'DiscoverResult listing 2026-07-28 among others', reply: { ok: true, result: { ...discoverResult, supportedVersions: ['2027-01-01', '2026-07-28'] } },
    stdio: MODERN, http: [[200, MODERN]] },
  { answer: 'DiscoverResult without a common version (VER-6)', reply: { ok: true, result: { ...discoverResult, supportedVersions: ['2027-01-01'] } },
    stdio: { ...DOWN_MODERN, reason: /no protocol version in common \(backend supports \["2027-01-01"\]\)/ }, http: [[200, DOWN_MODERN]] },
  { answer: 'result that is not a DiscoverResult', reply: { ok: true, result: {} }, stdio: LEGACY, http: [[200, LEGACY]] },
  { answer: '-32022 whose data.supported has 2026-07-28', reply: error(-32022, { supported: ['2026-07-28'], requested: '2026-07-28' }),
    stdio: { ...MODERN, capabilities: {}, note: 'UnsupportedProtocolVersion error' }, http: [[400, { ...MODERN, capabilities: {} }], [200, MODERN]] },
  { answer: '-32022 whose data.supported has no common version', reply: error(-32022, { supported: ['2027-01-01'] }),
    stdio: { ...DOWN_MODERN, reason: /in common/ }, http: [[400, DOWN_MODERN], [500, DOWN_MODERN]] },
  { answer: '-32022 without data.supported (not a modern error)', reply: error(-32022), stdio: LEGACY, http: [[400, LEGACY], [500, DOWN_UNKNOWN]] },
  { answer: '-32021 MissingRequiredClientCapability', reply: error(-32021, { requiredCapabilities: { sampling: {} } }),
    stdio: { ...DOWN_MODERN, reason: 'server/discover refused by a modern backend: x (-32021)' }, http: [[400, DOWN_MODERN]] },
  { answer: '-32020 HeaderMismatch', reply: error(-32020), stdio: DOWN_MODERN, http: [[400, DOWN_MODERN]] },
  { answer: '-32601 (ERA-4)', reply: error(-32601), stdio: { ...LEGACY, note: 'server/discover answered error -32601' },
    http: [[404, { ...LEGACY, note: 'server/discover answered error -32601' }], [200, LEGACY], [500, LEGACY], [401, LEGACY]] },
  { answer: '-32602', reply: error(-32602), stdio: LEGACY, http: [[400, LEGACY], [200, LEGACY]] },
  { answer: '-32000 "Server not initialized" (SDK 1.x, not keyed on one code)', reply: error(-32000),
    stdio: { ...LEGACY, note: 'server/discover answered error -32000' },
    http: [[400, { ...LEGACY, note: 'server/discover answered HTTP 400 with error -32000' }], [404, LEGACY], [405, LEGACY], [200, LEGACY], [401, DOWN_UNKNOWN], [403, DOWN_UNKNOWN]] },
  { answer: '-32603', reply: error(-32603), stdio: LEGACY, http: [[503, { ...DOWN_UNKNOWN, reason: 'server/discover answered HTTP 503 with error -32603' }], [500, DOWN_UNKNOWN]] },
  { answer: 'a response that is not JSON-RPC (HTTP: a status without one)', reply: { ok: 'invalid', detail: 'result is not an object' },
    stdio: { ...LEGACY, note: 'server/discover: result is not an object' },
    http: [[400, { ...LEGACY, note: 'server/discover answered HTTP 400 without a JSON-RPC error' }], [404, LEGACY], [405, LEGACY],
      [401, DOWN_UNKNOWN], [500, { ...DOWN_UNKNOWN, reason: 'server/discover answered HTTP 500 without a usable reply' }], [200, DOWN_UNKNOWN]] },
  { answer: 'no answer within the probe timeout', reply: { ok: 'timeout', detail: 'no answer within 10 ms' },
    stdio: { ...LEGACY, note: 'server/discover: no answer within 10 ms' }, http: [[undefined, { ...DOWN_UNKNOWN, reason: 'no answer within 10 ms during the era probe' }]] },
  { answer: 'no answer at all (child gone, backend unreachable)', reply: { ok: 'gone', detail: 'child exited with code 1' },
    stdio: { ...DOWN_UNKNOWN, reason: 'child exited with code 1 during the era probe' }, http: [[undefined, DOWN_UNKNOWN]] },
]

function verdictName(verdict: Expected): string {
  return verdict.kind === 'down' ? `down (era ${String(verdict.era)})` : String(verdict.kind)
}

t.test('classifyDiscover: stdio (STDIO-11)', async (t) => {
  for (const row of rows) {
    const outcome: ProbeOutcome = { transport: 'stdio', reply: row.reply }
    t.match(classifyDiscover(outcome), row.stdio, `stdio: ${row.answer} → ${verdictName(row.stdio)}`)
  }
})

t.test('classifyDiscover: HTTP (ERA-1, ERA-4)', async (t) => {
  for (const row of rows) {
    for (const [status, verdict] of row.http) {
      const outcome: ProbeOutcome = { transport: 'http', reply: row.reply, httpStatus: status }
      t.match(classifyDiscover(outcome), verdict, `HTTP ${status ?? '(no response)'}: ${row.answer} → ${verdictName(verdict)}`)
    }
  }
})

t.test('classifyDiscover: verdicts carry only their own fields', async (t) => {
  t.same(classifyDiscover({ transport: 'stdio', reply: { ok: true, result: discoverResult } }),
    { kind: 'modern', protocolVersion: '2026-07-28', capabilities: { tools: {} }, note: 'DiscoverResult' }, 'DiscoverResult → version, capabilities, note')
  t.same(classifyDiscover({ transport: 'http', httpStatus: 404, reply: error(-32601) }),
    { kind: 'legacy', note: 'server/discover answered error -32601' }, '404 -32601 → a note only')
})

t.test('buildModernMeta → the preferred version, no client capabilities, the gateway identity', async (t) => {
  t.same(buildModernMeta({ name: 'gw', version: '9' }), {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'gw', version: '9' },
  })
})
