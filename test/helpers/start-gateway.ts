// startGateway(t, overrides): builds the app on port 0 (127.0.0.1), registers teardown.
import { Writable } from 'node:stream'
import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../../src/app.ts'
import { validateConfig } from '../../src/config/schema.ts'
import type { GatewayConfig } from '../../src/config/types.ts'

export type LogRecord = Record<string, unknown>

// The gateway's pino lines, parsed, for tests that wait on what the gateway did (no polling).
export interface LogTap {
  // Resolves with the oldest not-yet-consumed record matching `predicate`.
  waitFor(predicate: (record: LogRecord) => boolean): Promise<LogRecord>
  // Every record written so far, consumed or not.
  seen(): readonly LogRecord[]
}

export interface StartedGateway {
  app: FastifyInstance
  url: string // http://127.0.0.1:PORT/mcp (https:// with tls)
  origin: string // http://127.0.0.1:PORT
  config: GatewayConfig
  // Present when started with { logs: true }.
  logs?: LogTap
}

export interface StartOptions {
  waitReady?: boolean
  // Capture the gateway's logs (at `logLevel`, default info) into `logs` instead of silencing them.
  logs?: boolean
  logLevel?: string
  // Listen on this port instead of any free one (when the config must name the gateway's URL).
  port?: number
}

export async function startGateway(t: Test, raw: Record<string, unknown> = {}, options: StartOptions = {}): Promise<StartedGateway> {
  const result = validateConfig({ port: 0, logLevel: 'silent', stateSecret: 'test-secret-test-secret-test-secret', ...raw })
  if (!result.ok) throw new Error(result.errors.join('; '))
  const tap = options.logs ? createLogTap() : undefined
  const logger = tap ? { level: options.logLevel ?? 'info', stream: tap.stream } : { level: 'silent' }
  const app = await build(result.config, { logger })
  t.teardown(() => app.close())
  await app.listen({ host: '127.0.0.1', port: options.port ?? 0 })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no address')
  const origin = `${result.config.tls ? 'https' : 'http'}://127.0.0.1:${address.port}`
  if (options.waitReady !== false) await waitReady(app)
  return { app, url: `${origin}/mcp`, origin, config: result.config, logs: tap?.logs }
}

// Probes run at onReady; wait for each backend's first probe to settle (up or down).
async function waitReady(app: FastifyInstance): Promise<void> {
  await app.gateway.probed()
}

interface Waiter {
  predicate: (record: LogRecord) => boolean
  resolve: (record: LogRecord) => void
}

function createLogTap(): { stream: Writable; logs: LogTap } {
  const backlog: LogRecord[] = []
  const all: LogRecord[] = []
  const waiters = new Set<Waiter>()
  let partial = ''
  const take = (record: LogRecord): void => {
    all.push(record)
    for (const waiter of waiters) {
      if (!waiter.predicate(record)) continue
      waiters.delete(waiter)
      waiter.resolve(record)
      return
    }
    backlog.push(record)
  }
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const lines = (partial + chunk.toString('utf8')).split('\n')
      partial = lines.pop() ?? ''
      for (const line of lines) if (line.trim() !== '') take(JSON.parse(line) as LogRecord)
      callback()
    },
  })
  const waitFor = (predicate: (record: LogRecord) => boolean): Promise<LogRecord> => {
    const index = backlog.findIndex(predicate)
    if (index >= 0) return Promise.resolve(backlog.splice(index, 1)[0])
    return new Promise((resolve) => waiters.add({ predicate, resolve }))
  }
  return { stream, logs: { waitFor, seen: () => all } }
}
