// Server-Sent Events framing (SSE-5, SSE-8). Pure: an encoder and an incremental decoder.

// SSE-8: one JSON-RPC message per event, single-line data, no id and no event field.
export function encodeSseEvent(json: string): string {
  return `data: ${json}\n\n`
}

// SSE-5: a comment line as keep-alive.
export const SSE_KEEP_ALIVE = ':\n\n'

// Incremental decoder: feed text chunks, get complete event data strings. Comment lines,
// `id:`, `event:` and `retry:` fields are skipped; events with empty data (priming) are dropped.
// Linear in the input: each character is scanned once, and a line split over many chunks is kept
// as its pieces until it ends, so a 4 MiB line costs one join, not one rescan per chunk.
export class SseDecoder {
  readonly #maxEventChars: number
  // Pieces of the line not yet ended, and the data lines of the event not yet dispatched.
  #pending: string[] = []
  #data: string[] = []
  #chars = 0
  // The previous chunk ended with CR: a LF opening this one belongs to it (CRLF split in two).
  #afterCr = false

  constructor(maxEventChars = 16 * 1024 * 1024) {
    this.#maxEventChars = maxEventChars
  }

  push(chunk: string): string[] {
    const events: string[] = []
    let start = this.#afterCr && chunk.charCodeAt(0) === 10 ? 1 : 0
    this.#afterCr = false
    let lf = chunk.indexOf('\n', start)
    let cr = chunk.indexOf('\r', start)
    while (lf !== -1 || cr !== -1) {
      const end = cr === -1 || (lf !== -1 && lf < cr) ? lf : cr
      this.#line(chunk.slice(start, end), events)
      start = end + 1
      if (end === cr) {
        if (start === chunk.length) this.#afterCr = true
        else if (chunk.charCodeAt(start) === 10) start++
      }
      if (lf !== -1 && lf < start) lf = chunk.indexOf('\n', start)
      if (cr !== -1 && cr < start) cr = chunk.indexOf('\r', start)
    }
    if (start < chunk.length) this.#keep(chunk.slice(start))
    return events
  }

  // Flush at end of stream: a final event without its blank line still counts.
  end(): string[] {
    const events: string[] = []
    if (this.#pending.length > 0) this.#line('', events)
    this.#line('', events)
    return events
  }

  #keep(piece: string): void {
    this.#chars += piece.length
    if (this.#chars > this.#maxEventChars) throw new RangeError('SSE event exceeds the size limit')
    this.#pending.push(piece)
  }

  #line(tail: string, events: string[]): void {
    this.#chars += tail.length
    if (this.#chars > this.#maxEventChars) throw new RangeError('SSE event exceeds the size limit')
    let line = tail
    if (this.#pending.length > 0) {
      this.#pending.push(tail)
      line = this.#pending.join('')
      this.#pending = []
    }
    if (line === '') return this.#dispatch(events)
    if (line.startsWith('data:')) this.#data.push(line.startsWith('data: ') ? line.slice(6) : line.slice(5))
    else this.#chars -= line.length // comments and other fields do not count toward the event
  }

  #dispatch(events: string[]): void {
    this.#chars = 0
    if (this.#data.length === 0) return
    const data = this.#data.length === 1 ? this.#data[0] : this.#data.join('\n')
    this.#data = []
    if (data.length > 0) events.push(data)
  }
}
