// No log line over LOG_LINE_MAX_BYTES (README "Limits", log amplification): the access line clips
// the client's strings itself (src/front/access.ts); this is the net under every other line. An
// oversized line is replaced by a short one that says so and keeps its level, time, reqId, message
// and first bytes. Installed as pino's streamWrite hook: a length check per line.
export const LOG_LINE_MAX_BYTES = 16 * 1024
const HEAD_CHARS = 1024

export function capLogLine(line: string): string {
  // A UTF-16 unit is at most 3 bytes of UTF-8: most lines need no byte count at all.
  if (line.length * 3 <= LOG_LINE_MAX_BYTES || Buffer.byteLength(line) <= LOG_LINE_MAX_BYTES) return line
  let record: Record<string, unknown> = {}
  try {
    record = JSON.parse(line) as Record<string, unknown>
  } catch {
    // not JSON (pino-pretty): the head alone
  }
  const { level, time, pid, hostname, reqId, msg } = record
  const short = { level, time, pid, hostname, reqId, msg, truncated: true, bytes: Buffer.byteLength(line), head: line.slice(0, HEAD_CHARS) }
  return `${JSON.stringify(short)}\n`
}
