// A stdio MCP peer driven by a test: a real child process (here mcp-remote, the stdio↔HTTP bridge
// desktop clients use) spoken to in JSON-RPC lines. Waits on lines, never on time; the teardown
// ends its stdin and awaits its exit (SIGTERM, then SIGKILL), so no child outlives the test.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import type { TeardownHost } from './backend-process.ts'

const KILL_GRACE_MS = 5_000

export interface StdioPeer {
  child: ChildProcess
  send(message: object): void
  // The oldest not-yet-taken message matching `predicate`; rejects if the child exits first.
  next(predicate: (message: any) => boolean): Promise<any>
  // A request and its response (by id).
  request(id: number | string, method: string, params?: object): Promise<any>
}

interface Waiter {
  predicate: (message: any) => boolean
  resolve: (message: any) => void
  reject: (err: Error) => void
}

export function startStdioPeer(t: TeardownHost, args: string[], env: Record<string, string>): StdioPeer {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', ...env } })
  const exited = once(child, 'exit')
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.stdin!.end()
    const timer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS)
    child.kill('SIGTERM')
    await exited
    clearTimeout(timer)
  })
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr = (stderr + chunk).slice(-4_000) })
  const backlog: any[] = []
  const waiters = new Set<Waiter>()
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let message: any
    try { message = JSON.parse(line) } catch { return }
    for (const waiter of waiters) {
      if (!waiter.predicate(message)) continue
      waiters.delete(waiter)
      return waiter.resolve(message)
    }
    backlog.push(message)
  })
  void exited.then(() => {
    for (const waiter of waiters) waiter.reject(new Error(`the peer exited first\n${stderr}`))
    waiters.clear()
  })
  const next = (predicate: (message: any) => boolean): Promise<any> => {
    const index = backlog.findIndex(predicate)
    if (index >= 0) return Promise.resolve(backlog.splice(index, 1)[0])
    return new Promise((resolve, reject) => waiters.add({ predicate, resolve, reject }))
  }
  const send = (message: object): void => void child.stdin!.write(`${JSON.stringify(message)}\n`)
  const request = (id: number | string, method: string, params?: object): Promise<any> => {
    const answer = next((m) => m.id === id && ('result' in m || 'error' in m))
    send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params })
    return answer
  }
  return { child, send, next, request }
}
