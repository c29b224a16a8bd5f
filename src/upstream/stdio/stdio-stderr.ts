// A stdio child's stderr, sent to the logs at debug, at a bounded rate (STDIO-3: free-form text, never an
// error signal). At most `linesPerSecond` lines are logged per one-second window; the rest are
// counted and reported as one "suppressed" line when the next window opens or the stream ends.
import type { Logger } from '../../observability/logger.ts'
import { createLineFramer } from './line-framer.ts'

export const DEFAULT_STDERR_LINES_PER_SECOND = 20
// Longest stderr line kept in a log record; the rest of the line is dropped.
const MAX_STDERR_LINE_BYTES = 8_192
const WINDOW_MS = 1_000

export interface StderrLogOptions {
  logger: Logger
  linesPerSecond: number
  now?: () => number
}

export interface StderrLog {
  push(chunk: Buffer): void
  end(): void
}

export function createStderrLog(options: StderrLogOptions): StderrLog {
  const now = options.now ?? Date.now
  let windowStart = -Infinity
  let logged = 0
  let suppressed = 0

  const reportSuppressed = (): void => {
    if (suppressed === 0) return
    options.logger.debug({ suppressed }, 'stdio backend stderr lines suppressed (rate limit)')
    suppressed = 0
  }

  const onLine = (line: string): void => {
    const at = now()
    if (at - windowStart >= WINDOW_MS) {
      reportSuppressed()
      windowStart = at
      logged = 0
    }
    if (logged >= options.linesPerSecond) {
      suppressed++
      return
    }
    logged++
    options.logger.debug({ stderr: line }, 'stdio backend stderr')
  }

  const framer = createLineFramer({
    maxLineBytes: MAX_STDERR_LINE_BYTES,
    onLine,
    onOversized: (byteCount) => onLine(`<${byteCount} bytes of stderr without a newline dropped>`),
  })
  return {
    push: (chunk) => framer.push(chunk),
    end() {
      framer.end()
      reportSuppressed()
    },
  }
}
