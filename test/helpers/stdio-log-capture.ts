// A pino logger whose records a test can read and wait for (no sleeps: waiters are woken by writes).
import { Writable } from 'node:stream'
import { pino } from 'pino'
import type { Logger } from 'pino'

export type LogRecord = Record<string, unknown>

export interface LogCapture {
  logger: Logger
  records: LogRecord[]
  waitFor(predicate: (record: LogRecord) => boolean): Promise<LogRecord>
}

export function createLogCapture(): LogCapture {
  const records: LogRecord[] = []
  const waiters: Array<{ predicate: (record: LogRecord) => boolean; resolve: (record: LogRecord) => void }> = []
  const take = (record: LogRecord): void => {
    records.push(record)
    for (const waiter of [...waiters]) {
      if (!waiter.predicate(record)) continue
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve(record)
    }
  }
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') take(JSON.parse(line) as LogRecord)
      callback()
    },
  })
  return {
    logger: pino({ level: 'debug' }, stream),
    records,
    waitFor(predicate) {
      const seen = records.find(predicate)
      if (seen !== undefined) return Promise.resolve(seen)
      return new Promise((resolve) => waiters.push({ predicate, resolve }))
    },
  }
}

// A record of the child's stderr carrying a fixture event (see test/fixtures/stdio-fixture-tools.ts).
export function readStderrEvent(record: LogRecord): LogRecord | undefined {
  if (typeof record.stderr !== 'string' || !record.stderr.startsWith('{')) return undefined
  return JSON.parse(record.stderr) as LogRecord
}
