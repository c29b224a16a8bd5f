// Runs the published @modelcontextprotocol/server-everything (a 2025-11-25 server) in Streamable
// HTTP mode as a real child process on a free port. Resolves once it logs that it is listening
// (no polling); the teardown stops it and awaits its exit, so no child outlives the test.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import type { TeardownHost } from './backend-process.ts'
import { findFreePort } from './ports.ts'

const KILL_GRACE_MS = 5_000
const ENTRY = new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url).pathname

export interface EverythingServer {
  url: string
  child: ChildProcess
}


// The server prints "... listening on port N" (on stderr, despite the name of console.error).
function waitListening(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const onLine = (line: string): void => {
      if (/listening on port/i.test(line)) resolve()
    }
    createInterface({ input: child.stdout! }).on('line', onLine)
    createInterface({ input: child.stderr! }).on('line', onLine)
    child.once('exit', (code, signal) => reject(new Error(`server-everything exited (code ${code}, signal ${signal})`)))
    child.once('error', reject)
  })
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS)
  await exited
  clearTimeout(timer)
}

export async function startEverythingHttp(t: TeardownHost): Promise<EverythingServer> {
  const port = await findFreePort()
  const child = spawn(process.execPath, [ENTRY, 'streamableHttp'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
  })
  t.teardown(() => stopChild(child))
  await waitListening(child)
  return { url: `http://127.0.0.1:${port}/mcp`, child }
}
