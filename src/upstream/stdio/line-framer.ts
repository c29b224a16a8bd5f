// Newline-delimited framing for a byte stream (STDIO-1): chunks in, complete lines out.
// Pure, no I/O. A line longer than `maxLineBytes` is never buffered whole: its bytes are
// discarded up to the next newline and reported once through `onOversized` (STDIO-2).
export interface LineFramerOptions {
  maxLineBytes: number
  onLine: (line: string) => void
  onOversized: (byteCount: number) => void
}

export interface LineFramer {
  push(chunk: Buffer): void
  // End of stream: a final unterminated line is delivered like any other.
  end(): void
}

const NEWLINE = 0x0a
const CARRIAGE_RETURN = 0x0d

export function createLineFramer(options: LineFramerOptions): LineFramer {
  let pending: Buffer[] = []
  let pendingBytes = 0
  // Bytes of an oversized line seen so far; -1 while the current line is within bounds.
  let skippedBytes = -1

  const emit = (line: Buffer): void => {
    const end = line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN ? line.length - 1 : line.length
    if (end > 0) options.onLine(line.toString('utf8', 0, end))
  }

  const finishLine = (tail: Buffer): void => {
    if (skippedBytes >= 0) {
      options.onOversized(skippedBytes + tail.length)
    } else if (pendingBytes + tail.length > options.maxLineBytes) {
      options.onOversized(pendingBytes + tail.length)
    } else {
      emit(pending.length === 0 ? tail : Buffer.concat([...pending, tail]))
    }
    pending = []
    pendingBytes = 0
    skippedBytes = -1
  }

  const keepPartial = (part: Buffer): void => {
    if (skippedBytes >= 0) {
      skippedBytes += part.length
    } else if (pendingBytes + part.length > options.maxLineBytes) {
      skippedBytes = pendingBytes + part.length
      pending = []
      pendingBytes = 0
    } else if (part.length > 0) {
      pending.push(part)
      pendingBytes += part.length
    }
  }

  return {
    push(chunk) {
      let start = 0
      for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, start)) {
        finishLine(chunk.subarray(start, at))
        start = at + 1
      }
      keepPartial(chunk.subarray(start))
    },
    end() {
      if (pendingBytes > 0 || skippedBytes >= 0) finishLine(Buffer.alloc(0))
    },
  }
}
