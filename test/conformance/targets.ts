/**
 * What the suite is pointed at:
 * - `direct`: the conformance fixture itself;
 * - `gateway`: `node src/server.ts` with a one-backend config pointing at the
 *   fixture, unprefixed (`namespace: ""`: the suite calls fixed names).
 */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { stopChild } from '../helpers/backend-process.ts'
import type { TeardownHost } from '../helpers/backend-process.ts'

export const TARGET_MODES = { direct: 'direct', gateway: 'gateway' } as const
export type TargetMode = (typeof TARGET_MODES)[keyof typeof TARGET_MODES]

const LISTENING_PATTERN = /Server listening at (http:\/\/\S+)/
const GATEWAY_START_TIMEOUT_MS = 20_000
const STDERR_TAIL_CHARS = 4_000

export interface TargetOptions {
  mode: TargetMode
  fixtureUrl: string
  repoRoot: string
  /** Path of the gateway's MCP endpoint, appended to its listen address. */
  gatewayPath: string
  /** The gateway entry point, relative to `repoRoot` (default `src/server.ts`). */
  gatewayEntry: string
}

export function parseTargetMode(value: string | undefined): TargetMode {
  const mode = value === undefined || value === '' ? TARGET_MODES.gateway : value
  if (mode === TARGET_MODES.direct || mode === TARGET_MODES.gateway) return mode
  throw new RangeError(`CONFORMANCE_TARGET must be "direct" or "gateway", got "${mode}"`)
}

export async function startTarget(t: TeardownHost, options: TargetOptions): Promise<string> {
  if (options.mode === TARGET_MODES.direct) return options.fixtureUrl
  return startGateway(t, options)
}

async function writeGatewayConfig(t: TeardownHost, fixtureUrl: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-gateway-conformance-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'gateway.json')
  const config = { backends: [{ name: 'conformance', transport: 'http', url: fixtureUrl, namespace: '' }] }
  await writeFile(file, `${JSON.stringify(config, null, 2)}\n`)
  return file
}

async function startGateway(t: TeardownHost, options: TargetOptions): Promise<string> {
  const configFile = await writeGatewayConfig(t, options.fixtureUrl)
  const child = spawn(process.execPath, [resolve(options.repoRoot, options.gatewayEntry)], {
    cwd: options.repoRoot,
    env: { ...process.env, MCP_GATEWAY_CONFIG: configFile, MCP_GATEWAY_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  t.teardown(() => stopChild(child))
  const address = await waitForListening(child)
  return new URL(options.gatewayPath, toLoopback(address)).href
}

/** A wildcard listen address is reachable on loopback; the suite wants a localhost URL. */
function toLoopback(address: string): string {
  const url = new URL(address)
  if (url.hostname === '0.0.0.0' || url.hostname === '[::]') url.hostname = '127.0.0.1'
  return url.href
}

/** Resolves with the address of the first pino line whose msg says the server listens. */
function waitForListening(child: ChildProcess): Promise<string> {
  let stderrTail = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS)
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not log "Server listening at" within ${GATEWAY_START_TIMEOUT_MS} ms`)), GATEWAY_START_TIMEOUT_MS)
    timer.unref()
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const address = listeningAddress(line)
      if (address === undefined) return
      clearTimeout(timer)
      resolve(address)
    })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`gateway exited (code ${code}, signal ${signal}) before listening\n${stderrTail}`))
    })
  })
}

function listeningAddress(line: string): string | undefined {
  try {
    const record: unknown = JSON.parse(line)
    const msg = typeof record === 'object' && record !== null ? (record as { msg?: unknown }).msg : undefined
    return typeof msg === 'string' ? LISTENING_PATTERN.exec(msg)?.[1] : undefined
  } catch {
    return undefined
  }
}
