import t from 'tap'
import { createStderrLog } from '../../../../src/upstream/stdio/stdio-stderr.ts'

function recordingLogger() {
  const entries: Array<{ level: string; fields: Record<string, unknown>; msg: string }> = []
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => { entries.push({ level, fields, msg }) }
  const logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => logger }
  return { logger: logger as never, entries }
}

t.test('stderr lines → logged at debug up to the rate, then one "suppressed" count (STDIO-3)', async (t) => {
  let now = 0
  const { logger, entries } = recordingLogger()
  const log = createStderrLog({ logger, linesPerSecond: 2, now: () => now })
  log.push(Buffer.from('one\ntwo\nthree\nfour\n'))
  t.same(entries.map((entry) => entry.fields), [{ stderr: 'one' }, { stderr: 'two' }], 'two lines in the first second')
  now = 1_000
  log.push(Buffer.from('five\n'))
  t.same(entries.slice(2).map((entry) => [entry.level, entry.fields]), [['debug', { suppressed: 2 }], ['debug', { stderr: 'five' }]])
  log.push(Buffer.from('six\nseven\nunterminated'))
  log.end()
  t.same(entries.slice(4).map((entry) => entry.fields), [{ stderr: 'six' }, { suppressed: 2 }], 'end reports what is left')
})

t.test('an endless stderr line → dropped with a note', async (t) => {
  const { logger, entries } = recordingLogger()
  const log = createStderrLog({ logger, linesPerSecond: 10 })
  log.push(Buffer.alloc(10_000, 0x61))
  log.push(Buffer.from('\n'))
  t.same(entries.map((entry) => entry.fields), [{ stderr: '<10000 bytes of stderr without a newline dropped>' }])
})
