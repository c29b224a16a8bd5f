// A real redis-server (Debian package redis-server) for the replica tests: its own temp dir, no
// persistence, a free loopback port; stopped in teardown. Tests skip with how to install it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import type { TeardownHost } from './backend-process.ts'
import { findFreePort } from './ports.ts'

export const REDIS_MISSING = 'redis-server not found: install it (Debian/Ubuntu: apt-get install -y redis-server) to run the replica tests'

export function hasBinary(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0
}

export interface RedisServer {
  url: string
  port: number
  // SIGKILL (an outage), and start again on the same port.
  stop(): Promise<void>
  start(): Promise<void>
}

export async function startRedis(t: TeardownHost): Promise<RedisServer> {
  const port = await findFreePort()
  const dir = mkdtempSync(join(tmpdir(), 'mcp-gw-redis-'))
  let child: ChildProcess | undefined
  const start = async (): Promise<void> => {
    const started = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'inherit'] })
    child = started
    const ready = new Promise<void>((resolve, reject) => {
      createInterface({ input: started.stdout! }).on('line', (line) => {
        if (line.includes('Ready to accept connections')) resolve()
      })
      started.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)))
    })
    await ready
  }
  const stop = async (): Promise<void> => {
    const running = child
    child = undefined
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return
    const exited = once(running, 'exit')
    running.kill('SIGKILL')
    await exited
  }
  await start()
  t.teardown(stop)
  return { url: `redis://127.0.0.1:${port}`, port, stop, start }
}
