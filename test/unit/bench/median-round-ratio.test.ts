// The bench's paired-round ratio: round i of one target over round i of the other, then the median.
import t from 'tap'
import { createMedianRoundRatio } from '../../../bench/lib/load-rows.ts'
import type { RoundFigures, TargetMeasure } from '../../../bench/lib/load-scenario.ts'

function measure(name: string, rounds: RoundFigures[]): TargetMeasure {
  const empty = new Float64Array(0)
  return { name, completed: 1, errors: 0, elapsedNs: 1, cpuMicros: 1, latenciesNs: empty, eventLatenciesNs: empty, rounds }
}

const cpu = (...values: number[]): RoundFigures[] => values.map((cpuUsPerReq) => ({ cpuUsPerReq, rps: 1 }))

t.test('one slow round on one side moves the sum, not the median', async (t) => {
  const line = createMedianRoundRatio('a / b CPU', measure('a', cpu(120, 110, 330)), measure('b', cpu(100, 100, 100)), 'cpuUsPerReq')
  t.equal(line.value, 1.2, 'ratios 1.2, 1.1, 3.3: the median is 1.2')
  t.equal(line.label, 'a / b CPU, median of 3 paired rounds')
  t.equal(line.goal, undefined, 'informative: no target is checked on it')
})

t.test('an even count averages the middle two; unpaired rounds are left out', async (t) => {
  const line = createMedianRoundRatio('x', measure('a', cpu(100, 200, 300, 400, 999)), measure('b', cpu(100, 100, 100, 100)), 'cpuUsPerReq')
  t.equal(line.value, 2.5, 'ratios 1, 2, 3, 4: (2 + 3) / 2')
})

t.test('a round with no call completed on either side is left out, and the others stay paired', async (t) => {
  const line = createMedianRoundRatio('x', measure('a', cpu(100, NaN, 300)), measure('b', cpu(100, 100, 100)), 'cpuUsPerReq')
  t.equal(line.value, 2, 'ratios 1 and 3: round 3 still paired with round 3')
})

t.test('no rounds on a side: no value', async (t) => {
  t.equal(createMedianRoundRatio('x', measure('a', []), measure('b', cpu(100)), 'rps').value, null)
})
