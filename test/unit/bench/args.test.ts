// The bench's command line: the options that shape a run, and the refusals of bad values.
import t from 'tap'
import { ALL_SCENARIOS, parseArgs } from '../../../bench/lib/args.ts'
import { createLoadPlan } from '../../../bench/lib/plans.ts'

t.test('no options: every scenario, the default rounds', async (t) => {
  const options = parseArgs([])
  t.same(options.scenarios, [...ALL_SCENARIOS])
  t.equal(options.rounds, undefined)
  t.equal(createLoadPlan(options).rounds, 3)
  t.equal(createLoadPlan({ ...options, quick: true }).rounds, 1)
})

t.test('--rounds sets the measured rounds of the load plans, in both spellings', async (t) => {
  const spaced = parseArgs(['--scenario', '1', '--rounds', '10'])
  t.equal(spaced.rounds, 10)
  t.same(spaced.scenarios, [1], 'each value is taken by its own flag')
  t.same(parseArgs(['--rounds', '10', '--scenario', '1']).scenarios, [1], 'the value after --rounds is not read as an option (it would throw)')
  t.equal(createLoadPlan(spaced).rounds, 10)
  t.equal(createLoadPlan({ ...spaced, quick: true }).rounds, 10, 'an explicit count wins over --quick')
  t.equal(parseArgs(['--rounds=4']).rounds, 4)
  t.equal(createLoadPlan(spaced, { rounds: 8 }).rounds, 8, "a scenario's own count still wins")
})

t.test('bad counts are refused with the range', async (t) => {
  for (const bad of ['0', '51', '2.5', 'x']) t.throws(() => parseArgs(['--rounds', bad]), /--rounds must be 1\.\.50/, bad)
  t.throws(() => parseArgs(['--rounds']), /--rounds needs a value/)
  t.throws(() => parseArgs(['--connections', '0']), /--connections must be 1\.\.1024/)
})
