// Harness for stdio backend integration tests: fixture configs, a backend with captured logs and
// status events, and waits that resolve on events (a ref'd deadline only turns a hang into a failure).
import { readdirSync } from 'node:fs'
import type { Test } from 'tap'
import type { JsonObject, JsonRpcNotification } from '../../src/protocol/jsonrpc.ts'
import type { Backend, BackendStatus, ListenSink } from '../../src/upstream/backend.ts'
import type { StdioBackendConfig } from '../../src/config/types.ts'
import { createStdioBackend } from '../../src/upstream/stdio/stdio-backend.ts'
import type { StdioBackendTuning } from '../../src/upstream/stdio/stdio-tuning.ts'
import { createLogCapture, readStderrEvent } from './stdio-log-capture.ts'
import type { LogCapture, LogRecord } from './stdio-log-capture.ts'

export const FIXTURES = new URL('../fixtures/', import.meta.url)
export const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
export const FAST: Partial<StdioBackendTuning> = { restartInitialMs: 20, restartMaxMs: 200, probeTimeoutMs: 10_000 }
const DEADLINE_MS = 20_000

export type Fixture = 'stdio-modern' | 'stdio-legacy' | 'stdio-stubborn' | 'stdio-scripted' | 'stdio-group'

export function fixtureConfig(fixture: Fixture, overrides: Partial<StdioBackendConfig> = {}): StdioBackendConfig {
  return {
    name: fixture.replace('stdio-', ''),
    transport: 'stdio',
    namespace: '',
    timeoutMs: 15_000,
    command: process.execPath,
    args: [new URL(`${fixture}.ts`, FIXTURES).pathname],
    env: {},
    maxLineBytes: 1_048_576,
    concurrency: 64,
    envFiles: {},
    ...overrides,
  }
}

export interface Harness {
  backend: Backend
  logs: LogCapture
  statuses: BackendStatus[]
  waitForStatus(predicate: (status: BackendStatus) => boolean): Promise<BackendStatus>
  waitForEvent(predicate: (event: LogRecord) => boolean): Promise<LogRecord>
}

// Every wait is on an event; a ref'd deadline only turns a hang into a clear failure.
export function deadline<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), DEADLINE_MS)
  })
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer))
}

export function createHarness(t: Test, config: StdioBackendConfig, tuning: Partial<StdioBackendTuning> = FAST): Harness {
  const logs = createLogCapture()
  const statuses: BackendStatus[] = []
  const waiters: Array<{ predicate: (status: BackendStatus) => boolean; resolve: (status: BackendStatus) => void }> = []
  const onStatus = (status: BackendStatus): void => {
    statuses.push(status)
    for (const waiter of waiters.splice(0)) {
      if (waiter.predicate(status)) waiter.resolve(status)
      else waiters.push(waiter)
    }
  }
  const backend = createStdioBackend(config, { logger: logs.logger, tuning, onStatus })
  t.teardown(() => backend.close())
  return {
    backend, logs, statuses,
    // The current status counts: it is the last one published.
    waitForStatus: (predicate) => predicate(backend.status())
      ? Promise.resolve(backend.status())
      : deadline(new Promise((resolve) => waiters.push({ predicate, resolve })), 'a backend status'),
    waitForEvent: async (predicate) => {
      const record = await deadline(logs.waitFor((entry) => {
        const event = readStderrEvent(entry)
        return event !== undefined && predicate(event)
      }), 'a fixture event')
      return readStderrEvent(record) as LogRecord
    },
  }
}

export function callTool(backend: Backend, name: string, args: JsonObject = {}, options: { meta?: JsonObject; signal?: AbortSignal; onNotification?: (n: JsonRpcNotification) => void } = {}) {
  return backend.request({
    method: 'tools/call',
    params: { name, arguments: args, _meta: { ...MODERN_META, ...options.meta } },
    signal: options.signal ?? new AbortController().signal,
    onNotification: options.onNotification,
  })
}

export async function toolText(backend: Backend, name: string, args: JsonObject = {}): Promise<string> {
  const reply = await callTool(backend, name, args)
  if (!reply.ok) throw new Error(`tool ${name} failed: ${reply.error.message}`)
  return (reply.result.content as Array<{ text: string }>)[0].text
}

// Gone, or past the point of no return: a process whose file table the kernel has already torn
// down (zombie, or still inside exit) runs no more code. Linux: reads /proc.
export function isProcessGone(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return readdirSync(`/proc/${pid}/fd`).length === 0
  } catch (error) {
    return ['ESRCH', 'ENOENT'].includes((error as NodeJS.ErrnoException).code ?? '')
  }
}

export function recordingSink() {
  const received: JsonRpcNotification[] = []
  const closed: string[] = []
  const waiters: Array<{ predicate: (n: JsonRpcNotification) => boolean; resolve: (n: JsonRpcNotification) => void }> = []
  const sink: ListenSink = {
    onNotification(notification) {
      received.push(notification)
      for (const waiter of waiters.splice(0)) {
        if (waiter.predicate(notification)) waiter.resolve(notification)
        else waiters.push(waiter)
      }
    },
    onClose: (reason) => closed.push(reason),
  }
  const next = (predicate: (n: JsonRpcNotification) => boolean): Promise<JsonRpcNotification> =>
    deadline(new Promise((resolve) => waiters.push({ predicate, resolve })), 'a listen notification')
  return { sink, received, closed, next }
}

export const subscriptionIdOf = (notification: JsonRpcNotification): unknown =>
  (notification.params?._meta as JsonObject | undefined)?.['io.modelcontextprotocol/subscriptionId']

export function scriptedConfig(script: JsonObject, preamble: JsonObject[] = []): StdioBackendConfig {
  const config = fixtureConfig('stdio-scripted')
  return { ...config, args: [...config.args, JSON.stringify(script), JSON.stringify(preamble)] }
}
