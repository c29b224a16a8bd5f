// writeAccessLine: the same line logger.info(fields, 'mcp request') writes, for every kind of logger.
import t from 'tap'
import { pino, type LoggerOptions } from 'pino'
import { writeAccessLine } from '../../../src/observability/access-line.ts'
import type { Logger } from '../../../src/observability/logger.ts'

function capture(options: LoggerOptions = {}): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = []
  const logger = pino({ timestamp: () => ',"time":42', ...options }, { write: (line: string) => void lines.push(line) })
  return { logger, lines }
}

// Both ways of writing, on two loggers made alike: the lines must be the same.
function both(options: LoggerOptions, fields: Record<string, unknown>): [string[], string[]] {
  const fast = capture(options)
  const plain = capture(options)
  writeAccessLine(fast.logger, fields)
  plain.logger.info(fields, 'mcp request')
  return [fast.lines, plain.lines]
}

const FIELDS = [
  { reqId: 'abc', rpcMethod: 'tools/call', rpcId: 3, backend: 'b1', tool: 'echo', outcome: 'ok', status: 200, remoteAddress: '127.0.0.1', durationMs: 1.234 },
  { reqId: 'q"uote\\d', rpcId: 'id\nwith\tcontrols', tool: 'Zürich ✓', undefinedField: undefined, status: 499, durationMs: Number.NaN },
  { reqId: 'x', flag: true, nested: { not: 'flat' } },
]

for (const fields of FIELDS) {
  t.test(`the same line as pino's: ${JSON.stringify(Object.keys(fields))}`, async (t) => {
    const [fast, plain] = both({}, fields)
    t.same(fast, plain)
    t.equal(fast.length, 1)
    t.match(JSON.parse(fast[0]), { level: 30, msg: 'mcp request', reqId: fields.reqId })
  })
}

t.test('loggers that format their own way still get their own line', async (t) => {
  const cases: Array<[string, LoggerOptions]> = [
    ['a mixin', { mixin: () => ({ zone: 'eu' }) }],
    ['a log formatter', { formatters: { log: (obj) => ({ wrapped: obj }) } }],
    ['another message key', { messageKey: 'message' }],
    ['a nested key', { nestedKey: 'fields' }],
    ['a streamWrite hook', { hooks: { streamWrite: (line) => line.replace('mcp request', 'MCP REQUEST') } }],
    ['bindings', { base: { service: 'gw' } }],
  ]
  for (const [name, options] of cases) {
    const [fast, plain] = both(options, FIELDS[0])
    t.same(fast, plain, name)
  }
})

t.test('below the logger\'s level nothing is written', async (t) => {
  const { logger, lines } = capture({ level: 'warn' })
  writeAccessLine(logger, FIELDS[0])
  t.same(lines, [])
})

t.test('a logger that is not pino gets info() itself', async (t) => {
  const calls: unknown[][] = []
  const plain = { info: (...args: unknown[]) => void calls.push(args), debug() {}, warn() {}, error() {}, child: () => plain } as unknown as Logger
  writeAccessLine(plain, { reqId: 'r' })
  t.same(calls, [[{ reqId: 'r' }, 'mcp request']])
})

t.test('a plain pino logger is written without going through logger.info', async (t) => {
  const { logger, lines } = capture({ redact: ['req.headers.authorization'] })
  let infoCalls = 0
  const info = logger.info.bind(logger)
  logger.info = ((...args: Parameters<typeof info>) => {
    infoCalls++
    return info(...args)
  }) as typeof logger.info
  writeAccessLine(logger, FIELDS[0])
  t.equal(infoCalls, 0)
  t.equal(lines.length, 1)
})

t.test('parts are written in turn, as their merge would be', async (t) => {
  const parts = [{ reqId: 'r-9' }, { rpcMethod: 'tools/call', rpcId: 4, tool: undefined, outcome: 'ok' }, { remoteAddress: '127.0.0.1' }, { durationMs: 0.5 }]
  const fast = capture()
  const plain = capture()
  writeAccessLine(fast.logger, ...parts)
  plain.logger.info(Object.assign({}, ...parts), 'mcp request')
  t.same(fast.lines, plain.lines)
  const notPino = capture({ mixin: () => ({ zone: 'eu' }) })
  const mixed = capture({ mixin: () => ({ zone: 'eu' }) })
  writeAccessLine(notPino.logger, ...parts)
  mixed.logger.info(Object.assign({}, ...parts), 'mcp request')
  t.same(notPino.lines, mixed.lines, 'the fallback writes the merged fields')
})
