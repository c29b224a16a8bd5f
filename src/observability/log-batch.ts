// Log lines collected in memory and handed to the real destination (pino's sonic-boom on stdout)
// as one string per batch: once `batchChars` characters are waiting, or `flushMs` after the first
// waiting line. sonic-boom measures the byte length of its whole pending buffer on every write
// (and flattens it to do so), which costs more per line the more lines wait; handing it one string
// per batch makes that once per batch. Lines are never reordered or dropped; `flushSync` writes
// everything out (before the process exits).
export interface LogSink {
  write(text: string): unknown
  flushSync(): void
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

  constructor(sink: LogSink, options: LogBatchOptions) {
    this.#sink = sink
    this.#options = options
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
    this.#sink.write(text)
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
