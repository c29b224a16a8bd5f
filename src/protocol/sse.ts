// Server-Sent Events framing (SSE-5, SSE-8). Pure: an encoder and an incremental decoder.

// SSE-8: one JSON-RPC message per event, single-line data, no id and no event field.
export function encodeSseEvent(json: string): string {
  return `data: ${json}\n\n`
}

// SSE-5: a comment line as keep-alive.
export const SSE_KEEP_ALIVE = ':\n\n'

// Incremental decoder: feed text chunks, get complete event data strings. Comment lines,
// `id:`, `event:` and `retry:` fields are skipped; events with empty data (priming) are dropped.
export class SseDecoder {
  #buffer = ''
  #data: string[] = []
  #maxBufferChars: number

  constructor(maxBufferChars = 16 * 1024 * 1024) {
    this.#maxBufferChars = maxBufferChars
  }

  push(chunk: string): string[] {
    this.#buffer += chunk
    if (this.#buffer.length > this.#maxBufferChars) throw new RangeError('SSE event exceeds the size limit')
    const events: string[] = []
    let start = 0
    for (;;) {
      const end = this.#findLineEnd(start)
      if (end === -1) break
      const line = this.#buffer.slice(start, end)
      start = end + (this.#buffer[end] === '\r' && this.#buffer[end + 1] === '\n' ? 2 : 1)
      const event = this.#takeLine(line)
      if (event !== undefined) events.push(event)
    }
    this.#buffer = this.#buffer.slice(start)
    return events
  }

  // Flush at end of stream: a final event without its blank line still counts.
  end(): string[] {
    const tail = this.#buffer.length > 0 ? this.push('\n') : []
    const last = this.#takeLine('')
    return last === undefined ? tail : [...tail, last]
  }

  #findLineEnd(from: number): number {
    for (let i = from; i < this.#buffer.length; i++) {
      const c = this.#buffer.charCodeAt(i)
      if (c === 10) return i
      // A lone CR at the very end may be half of CRLF: wait for more.
      if (c === 13) return i + 1 < this.#buffer.length ? i : -1
    }
    return -1
  }

  #takeLine(line: string): string | undefined {
    if (line === '') {
      if (this.#data.length === 0) return undefined
      const data = this.#data.join('\n')
      this.#data = []
      return data.length > 0 ? data : undefined
    }
    if (line.startsWith('data:')) this.#data.push(line.startsWith('data: ') ? line.slice(6) : line.slice(5))
    return undefined
  }
}
