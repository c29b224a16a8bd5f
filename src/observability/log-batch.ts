// Log lines collected in memory and handed to the real destination (pino's sonic-boom on stdout,
// in its buffer mode) as one UTF-8 buffer per batch: once `batchChars` characters are waiting, or
// `flushMs` after the first waiting line. The batch is encoded once, here: given a string,
// sonic-boom measures its byte length twice, fs.write encodes it, and sonic-boom encodes it again
// once written (to slice what is left); given a buffer, it copies it once. Lines are never
// reordered or dropped: `settle` writes everything out before a planned exit. `flushSync` is for an
// exit that cannot wait (a crash): it writes what waits at once, but a batch the sink is still
// writing on the thread pool may then land after it, or be lost.
import { pino } from 'pino'

export interface LogSink {
  write(chunk: Buffer): unknown
  flushSync(): void
  // sonic-boom (async) emits 'drain' once it has written everything it was given.
  on?(event: 'drain', listener: () => void): unknown
  once?(event: 'drain', listener: () => void): unknown
  off?(event: 'drain', listener: () => void): unknown
}

export interface LogBatchOptions {
  batchChars: number
  flushMs: number
}

export class LogBatch {
  readonly #sink: LogSink
  readonly #options: LogBatchOptions
  #lines: string[] = []
  #chars = 0
  #timer: NodeJS.Timeout | undefined
  // A batch was handed to the sink and its 'drain' has not come yet.
  #sinkBusy = false

  constructor(sink: LogSink, options: LogBatchOptions) {
    this.#sink = sink
    this.#options = options
    sink.on?.('drain', () => (this.#sinkBusy = false))
  }

  // pino's destination contract: one serialised line (with its newline) per call.
  write(line: string): boolean {
    this.#lines.push(line)
    this.#chars += line.length
    if (this.#chars >= this.#options.batchChars) this.flush()
    else if (this.#timer === undefined) {
      this.#timer = setTimeout(this.#onTimer, this.#options.flushMs)
      this.#timer.unref()
    }
    return true
  }

  // Hands what waits to the sink (which writes it asynchronously).
  flush(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer)
      this.#timer = undefined
    }
    if (this.#lines.length === 0) return
    const text = this.#lines.length === 1 ? this.#lines[0] : this.#lines.join('')
    this.#lines = []
    this.#chars = 0
    this.#sinkBusy = this.#sink.on !== undefined
    this.#sink.write(Buffer.from(text, 'utf8'))
  }

  // Everything written out, in order, waiting at most limitMs for the sink's own writes in flight
  // (a blocked stdout); then flushSync.
  async settle(limitMs: number): Promise<void> {
    this.flush()
    if (this.#sinkBusy && this.#sink.once !== undefined) {
      const sink = this.#sink as Required<LogSink>
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer)
          sink.off('drain', done)
          resolve()
        }
        const timer = setTimeout(done, limitMs)
        sink.once('drain', done)
      })
    }
    this.flushSync()
  }

  // Everything written out now, synchronously.
  flushSync(): void {
    this.flush()
    this.#sink.flushSync()
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined
    this.flush()
  }
}

// pino's sonic-boom destination (asynchronous) in its buffer mode; its types name strings only.
export function bufferDestination(dest: number | string): LogSink & NodeJS.EventEmitter & { end(): void } {
  return pino.destination({ dest, sync: false, mkdir: false, contentMode: 'buffer' }) as unknown as LogSink & NodeJS.EventEmitter & { end(): void }
}
