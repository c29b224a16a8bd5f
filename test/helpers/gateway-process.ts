// Runs `node src/server.ts` as a real child process with a config file; reads its pino log lines.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { TeardownHost } from './backend-process.ts'

const SERVER = fileURLToPath(new URL('../../src/server.ts', import.meta.url))

export interface GatewayProcess {
  child: ChildProcess
  url: string
  lines: string[]
  exited: Promise<number | null>
  // Resolves at the first log line (past or future; past ones from index `from` on) that matches.
  waitForLine(pattern: RegExp, from?: number): Promise<string>
}

export function writeConfig(config: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-gw-'))
  const path = join(dir, 'config.json')
  writeFileSync(path, typeof config === 'string' ? config : JSON.stringify(config))
  return path
}

export function spawnGateway(t: TeardownHost, configPath: string, env: Record<string, string> = {}): Omit<GatewayProcess, 'url'> {
  return watchGateway(t, ['--config', configPath], { MCP_GATEWAY_STATE_SECRET: 'process-test-process-test-process-test', ...env })
}

// `npm start` as a new user runs it: no config file, no secret, nothing in the environment but
// PATH and a free port (the default 8080 may be taken on a shared machine).
export async function startDefaultGateway(t: TeardownHost): Promise<GatewayProcess> {
  return listening(watchGateway(t, [], {}))
}

function watchGateway(t: TeardownHost, args: string[], env: Record<string, string>): Omit<GatewayProcess, 'url'> {
  const child = spawn(process.execPath, [SERVER, ...args], {
    env: { PATH: process.env.PATH ?? '', MCP_GATEWAY_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  // 'close', not 'exit': it comes once stdout and stderr ended, so `lines` holds every last line.
  const exited = once(child, 'close').then(([code]) => code as number | null)
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  })
  const lines: string[] = []
  const waiters = new Set<{ pattern: RegExp; resolve(line: string): void }>()
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(line)
      for (const w of waiters) if (w.pattern.test(line)) (waiters.delete(w), w.resolve(line))
    })
  }
  const waitForLine = (pattern: RegExp, from = 0): Promise<string> => {
    const seen = lines.slice(from).find((l) => pattern.test(l))
    if (seen !== undefined) return Promise.resolve(seen)
    return new Promise((resolve, reject) => {
      waiters.add({ pattern, resolve })
      void exited.then((code) => reject(new Error(`gateway exited with ${code} before ${pattern}`)))
    })
  }
  return { child, lines, exited, waitForLine }
}

export async function startGatewayProcess(t: TeardownHost, configPath: string, env: Record<string, string> = {}): Promise<GatewayProcess> {
  return listening(spawnGateway(t, configPath, env))
}

async function listening(started: Omit<GatewayProcess, 'url'>): Promise<GatewayProcess> {
  const line = await started.waitForLine(/Server listening at https?:\/\/127\.0\.0\.1:\d+/)
  const origin = /(https?:\/\/127\.0\.0\.1:\d+)/.exec(line)![1]
  return { ...started, url: `${origin}/mcp` }
}
