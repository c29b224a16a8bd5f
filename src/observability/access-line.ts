// The access line (one per MCP request, README "Logs") serialised here, in pino's own line format,
// and handed to the logger's destination: pino's generic path quotes every key anew and walks each
// field through its serializer table, about 2 KB and a microsecond a request (issue 8). Used only
// where it writes exactly what logger.info(fields, 'mcp request') would: checked once per logger
// against pino's own serializer for a sample line. A logger that is not pino, has a mixin, formats
// lines its own way (formatters, messageKey, nestedKey) or writes to a destination that wants
// per-line metadata (pino.multistream, transports) gets logger.info itself.
import { pino } from 'pino'
import type { Logger } from './logger.ts'

export const ACCESS_MESSAGE = 'mcp request'
type Fields = Record<string, unknown>
type LineWriter = (parts: readonly (object | undefined)[]) => void

const SYM = pino.symbols
const HOOKS = Symbol.for('pino.hooks')
const NEEDS_METADATA = Symbol.for('pino.metadata')
const INFO = 30
const writers = new WeakMap<Logger, LineWriter>()
const keyTexts = new Map<string, string>()

function keyText(key: string): string {
  let text = keyTexts.get(key)
  if (text === undefined) keyTexts.set(key, (text = `,${JSON.stringify(key)}:`))
  return text
}

// The fields as pino writes them, in their own order, undefined ones left out; undefined when one
// is not a string, number or boolean (pino's own serializer then writes the line).
export function fieldsText(fields: Fields): string | undefined {
  let text = ''
  for (const key in fields) {
    const value = fields[key]
    if (value === undefined) continue
    if (typeof value === 'string') text += keyText(key) + JSON.stringify(value)
    else if (typeof value === 'number') text += keyText(key) + (Number.isFinite(value) ? String(value) : 'null')
    else if (typeof value === 'boolean') text += keyText(key) + String(value)
    else return undefined
  }
  return text
}

function partsText(parts: readonly (object | undefined)[]): string | undefined {
  let text = ''
  for (const part of parts) {
    if (part === undefined) continue
    const more = fieldsText(part as Fields)
    if (more === undefined) return undefined
    text += more
  }
  return text
}

// The parts merged, for a writer that is not this one.
function merged(parts: readonly (object | undefined)[]): object {
  return parts.length === 1 && parts[0] !== undefined ? parts[0] : Object.assign({}, ...parts)
}

// pino's internals are reached through its exported symbols only.
interface PinoInternals {
  [key: symbol]: unknown
  isLevelEnabled?(level: string): boolean
}

const SAMPLE: Fields = { reqId: 'r-1', rpcMethod: 'tools/call', rpcId: 7, tool: 'a "quoted" \\ name', outcome: 'ok', status: 200, durationMs: 1.25 }

function createWriter(logger: Logger): LineWriter {
  const fallback: LineWriter = (parts) => logger.info(merged(parts), ACCESS_MESSAGE)
  const internals = logger as unknown as PinoInternals
  const stream = internals[SYM.streamSym] as { write?: (line: string) => unknown; [NEEDS_METADATA]?: boolean } | undefined
  const asJson = internals[SYM.asJsonSym] as ((obj: Fields, msg: string, level: number, time: string) => string) | undefined
  const levels = internals[SYM.lsCacheSym] as Record<number, string> | undefined
  if (typeof stream?.write !== 'function' || stream[NEEDS_METADATA] === true || typeof asJson !== 'function' || levels === undefined) return fallback
  if (internals[SYM.mixinSym] !== undefined || typeof internals.isLevelEnabled !== 'function') return fallback
  const tail = `,"msg":${JSON.stringify(ACCESS_MESSAGE)}${String(internals[SYM.endSym])}`
  const head = (time: string): string => levels[INFO] + time + String(internals[SYM.chindingsSym])
  if (head(',"time":0') + fieldsText(SAMPLE) + tail !== asJson.call(logger, SAMPLE, ACCESS_MESSAGE, INFO, ',"time":0')) return fallback
  const hook = (internals[HOOKS] as { streamWrite?: (line: string) => string } | undefined)?.streamWrite
  const time = internals[SYM.timeSym] as () => string
  return (parts) => {
    if (!internals.isLevelEnabled!('info')) return
    const text = partsText(parts)
    if (text === undefined) return fallback(parts)
    const line = head(time.call(logger)) + text + tail
    stream.write!(hook ? hook(line) : line)
  }
}

// Writes the access line with `logger`: the fields of each part in turn, the same line
// logger.info({ ...part1, ...part2 }, 'mcp request') writes, without merging them into one object
// (parts never share a key; an undefined part is skipped).
export function writeAccessLine(logger: Logger, ...parts: (object | undefined)[]): void {
  let writer = writers.get(logger)
  if (writer === undefined) writers.set(logger, (writer = createWriter(logger)))
  writer(parts)
}
