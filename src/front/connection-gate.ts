// Connections (README "Limits"): at most limits.connections client connections at once, lowered to
// three quarters of the process's open-file limit (soft RLIMIT_NOFILE) so the gateway never runs
// out of descriptors for its own backend connections and files. A connection past the cap is
// answered 503 with Retry-After and a JSON-RPC error, then closed. Near the open-file limit (80 %)
// one warning line per minute and the mcp_gateway_open_fds gauge say so.
import { readdirSync, readFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import { GatewayError } from '../errors.ts'
import type { Logger } from '../observability/logger.ts'
import { LIMIT, type GatewayMetrics } from '../observability/metrics.ts'
import { rawRefusal } from './client-error.ts'

export const RETRY_AFTER_S = 5
const FD_SHARE_FOR_CLIENTS = 0.75
const FD_WARN_SHARE = 0.8
const FD_CHECK_MS = 1_000
const FD_WARN_EVERY_MS = 60_000

// The soft limit on open files, from /proc/self/limits (Linux); undefined elsewhere or unlimited.
export function softFdLimit(limits = '/proc/self/limits'): number | undefined {
  try {
    const line = readFileSync(limits, 'utf8').split('\n').find((l) => l.startsWith('Max open files'))
    const soft = Number(line?.slice('Max open files'.length).trim().split(/\s+/)[0])
    return Number.isInteger(soft) && soft > 0 ? soft : undefined
  } catch {
    return undefined
  }
}

function openFds(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length
  } catch {
    return undefined
  }
}

export interface ConnectionGateOptions {
  limit: number
  metrics: GatewayMetrics
  log: Logger
  fdLimit?: number
}

export class ConnectionGate {
  readonly limit: number
  readonly fdLimit: number | undefined
  #open = 0
  #lastCheck = 0
  #lastWarning = -Infinity
  readonly #metrics: GatewayMetrics
  readonly #log: Logger
  readonly #refusal: string

  constructor(options: ConnectionGateOptions) {
    this.fdLimit = options.fdLimit
    const fdCap = options.fdLimit === undefined ? Infinity : Math.max(1, Math.floor(options.fdLimit * FD_SHARE_FOR_CLIENTS))
    this.limit = Math.min(options.limit, fdCap)
    this.#metrics = options.metrics
    this.#log = options.log
    this.#refusal = rawRefusal(new GatewayError('MCP_GATEWAY_LIMIT_CONNECTIONS', `retry after ${RETRY_AFTER_S} s`), { 'retry-after': String(RETRY_AFTER_S) })
    if (this.limit < options.limit) this.#log.warn({ connections: options.limit, fdLimit: options.fdLimit, effective: this.limit }, 'limits.connections lowered to three quarters of the open-file limit')
  }

  get open(): number {
    return this.#open
  }

  // Before node's own listener: the refusal is the first thing on the wire.
  attach(server: Server): void {
    server.prependListener('connection', this.#onConnection)
  }

  fds(): number | undefined {
    return openFds()
  }

  readonly #onConnection = (socket: Socket): void => {
    if (this.#open >= this.limit) {
      this.#metrics.limits.countRefusal(LIMIT.connections, '')
      socket.on('error', ignore)
      socket.end(this.#refusal)
      socket.destroySoon()
      return
    }
    this.#open++
    socket.on('close', this.#onClose)
    this.#watchFds()
  }

  readonly #onClose = (): void => {
    this.#open--
  }

  #watchFds(): void {
    const now = Date.now()
    if (this.fdLimit === undefined || now - this.#lastCheck < FD_CHECK_MS) return
    this.#lastCheck = now
    const fds = openFds()
    if (fds === undefined || fds < this.fdLimit * FD_WARN_SHARE || now - this.#lastWarning < FD_WARN_EVERY_MS) return
    this.#lastWarning = now
    this.#log.warn({ openFds: fds, fdLimit: this.fdLimit, connections: this.#open }, 'near the open-file limit')
  }
}

function ignore(): void {}
