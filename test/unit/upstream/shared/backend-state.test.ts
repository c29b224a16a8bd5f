// One backend state for every transport: the BackendStatus, and each transition logged once.
import t from 'tap'
import type { Logger } from '../../../../src/observability/logger.ts'
import type { BackendStatus } from '../../../../src/upstream/backend.ts'
import { BackendState } from '../../../../src/upstream/shared/backend-state.ts'

interface Line { level: string; msg: string; fields: Record<string, unknown> }

function setup(onStatus?: (status: BackendStatus) => void) {
  const lines: Line[] = []
  const record = (level: string) => (fields: Record<string, unknown>, msg: string) => { lines.push({ level, msg, fields }) }
  const logger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error'), child: () => logger } as unknown as Logger
  const statuses: BackendStatus[] = []
  const state = new BackendState({ name: 'b', transport: 'http', logger, initialReason: 'not probed yet', onStatus: onStatus ?? ((status) => { statuses.push(status) }) })
  return { state, lines, statuses, messages: () => lines.map((line) => line.msg) }
}

const MODERN = { era: 'modern', protocolVersion: '2026-07-28', capabilities: { tools: {} } } as const
const LEGACY = { era: 'legacy', protocolVersion: '2025-11-25', capabilities: {} } as const

t.test('before any verdict → down, era unknown, the initial reason, nothing logged', async (t) => {
  const { state, lines } = setup()
  t.same(state.status(), { name: 'b', transport: 'http', era: 'unknown', up: false, reason: 'not probed yet' })
  t.same(lines, [])
})

t.test('transitions → each line once', async (t) => {
  const cases: Array<{ name: string; steps: Array<(state: BackendState) => void>; logged: string[]; status: Partial<BackendStatus> }> = [
    { name: 'first verdict up → era detected, up', steps: [(s) => s.setUp(MODERN)], logged: ['backend era detected', 'backend up'],
      status: { era: 'modern', up: true, protocolVersion: '2026-07-28', reason: undefined } },
    { name: 'first verdict down → down', steps: [(s) => s.setDown('refused')], logged: ['backend down'], status: { era: 'unknown', up: false, reason: 'refused' } },
    { name: 'down twice → down once, the latest reason', steps: [(s) => s.setDown('a'), (s) => s.setDown('b')], logged: ['backend down'], status: { reason: 'b' } },
    { name: 'up twice, same era → logged once', steps: [(s) => s.setUp(MODERN), (s) => s.setUp(MODERN)], logged: ['backend era detected', 'backend up'], status: { up: true } },
    { name: 'up, down, up (same era) → up, down, up; era detected once', steps: [(s) => s.setUp(MODERN), (s) => s.setDown('gone'), (s) => s.setUp(MODERN)],
      logged: ['backend era detected', 'backend up', 'backend down', 'backend up'], status: { up: true, era: 'modern' } },
    { name: 'modern up, then legacy up → era detected again, no second up', steps: [(s) => s.setUp(MODERN), (s) => s.setUp(LEGACY)],
      logged: ['backend era detected', 'backend up', 'backend era detected'], status: { era: 'legacy', protocolVersion: '2025-11-25' } },
    { name: 'down proving an era → era detected, down; no version in that era yet', steps: [(s) => s.setDown('initialize failed', { era: 'legacy' })],
      logged: ['backend era detected', 'backend down'], status: { era: 'legacy', up: false, protocolVersion: undefined } },
    { name: 'down with era unknown → the known era stays (ERA-3)', steps: [(s) => s.setUp(MODERN), (s) => s.setDown('unreachable', { era: 'unknown' })],
      logged: ['backend era detected', 'backend up', 'backend down'], status: { era: 'modern', protocolVersion: '2026-07-28' } },
    { name: 'closed → down, reason closed, not logged as a failure', steps: [(s) => s.setUp(MODERN), (s) => s.setClosed()],
      logged: ['backend era detected', 'backend up'], status: { up: false, reason: 'closed', era: 'modern', protocolVersion: '2026-07-28' } },
  ]
  for (const entry of cases) {
    const { state, messages } = setup()
    for (const step of entry.steps) step(state)
    t.same(messages(), entry.logged, `${entry.name} (logged)`)
    const status = state.status()
    for (const [key, value] of Object.entries(entry.status)) {
      t.same(status[key as keyof BackendStatus], value, `${entry.name}: ${key}`)
    }
  }
})

t.test('log lines → backend name, era, version, reason and the transport\'s fields', async (t) => {
  const { state, lines } = setup()
  state.setUp({ ...LEGACY, fields: { session: true, note: 'n' } })
  state.setDown('reset', { fields: { delayMs: 250 } })
  t.same(lines, [
    { level: 'info', msg: 'backend era detected', fields: { backend: 'b', era: 'legacy', protocolVersion: '2025-11-25', session: true, note: 'n' } },
    { level: 'info', msg: 'backend up', fields: { backend: 'b', era: 'legacy', protocolVersion: '2025-11-25', session: true, note: 'n' } },
    { level: 'warn', msg: 'backend down', fields: { backend: 'b', reason: 'reset', delayMs: 250 } },
  ])
  t.same(state.capabilities, {}, 'capabilities of the last up verdict')
})

t.test('onStatus → after every change; a throwing listener is logged, not thrown', async (t) => {
  const { state, statuses } = setup()
  state.setUp(MODERN)
  state.setDown('x')
  state.setDown('y')
  t.same(statuses.map((status) => [status.up, status.reason]), [[true, undefined], [false, 'x'], [false, 'y']])
  const failing = setup(() => { throw new Error('listener bug') })
  t.doesNotThrow(() => failing.state.setUp(MODERN))
  t.match(failing.lines.at(-1), { level: 'error', msg: 'backend status listener failed', fields: { backend: 'b', err: { message: 'listener bug' } } })
})

// Outlier detection: one client's failing requests never make a backend down; several clients'
// failures in a row do; any answer ends the run.
t.test('recordFailure → true only at downAfterFailures different callers in a row', async (t) => {
  const logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => logger } as unknown as Logger
  const cases: Array<{ name: string; threshold: number; steps: string[]; verdicts: boolean[] }> = [
    { name: 'one caller failing 10 times, threshold 3 → never', threshold: 3, steps: Array(10).fill('a'), verdicts: Array(10).fill(false) },
    { name: 'callers a, b, c in a row, threshold 3 → at c', threshold: 3, steps: ['a', 'b', 'c'], verdicts: [false, false, true] },
    { name: 'a, a, b, b, c → at c (repeats count once)', threshold: 3, steps: ['a', 'a', 'b', 'b', 'c'], verdicts: [false, false, false, false, true] },
    { name: 'a, b, success, c → never (the run was broken)', threshold: 3, steps: ['a', 'b', 'ok', 'c'], verdicts: [false, false, false, false] },
    { name: 'threshold 1 → at the first failure', threshold: 1, steps: ['a'], verdicts: [true] },
  ]
  for (const { name, threshold, steps, verdicts } of cases) {
    const state = new BackendState({ name: 'b', transport: 'http', logger, initialReason: 'x', downAfterFailures: threshold })
    state.setUp(MODERN)
    const seen = steps.map((caller) => (caller === 'ok' ? (state.recordSuccess(), false) : state.recordFailure(caller)))
    t.same(seen, verdicts, name)
  }
})

t.test('recordFailure while down → false (already down; the probe decides the way back)', async (t) => {
  const { state } = setup()
  state.setDown('refused')
  t.equal(state.recordFailure('a'), false)
})
