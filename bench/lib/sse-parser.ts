// Incremental SSE decoding (events split anywhere across chunks): `data:` lines joined per event,
// comment lines (keep-alives) reported separately, other fields ignored.
export interface SseHandlers {
  onData(data: string): void
  onComment?(): void
}

export interface SseParser {
  push(chunk: string): void
}

export function createSseParser(handlers: SseHandlers): SseParser {
  let pending = ''
  let data: string[] = []
  const handleLine = (raw: string): void => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (line === '') {
      if (data.length > 0) handlers.onData(data.join('\n'))
      data = []
    } else if (line.startsWith(':')) {
      handlers.onComment?.()
    } else if (line.startsWith('data:')) {
      data.push(line.startsWith('data: ') ? line.slice(6) : line.slice(5))
    }
  }
  return {
    push(chunk) {
      const lines = (pending + chunk).split('\n')
      pending = lines.pop() ?? ''
      for (const line of lines) handleLine(line)
    }
  }
}
