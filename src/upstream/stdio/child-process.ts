// One stdio child process: spawned without a shell and with exactly the configured environment,
// stdout framed as newline-delimited JSON (STDIO-1/2), stderr to the logs at a bounded rate
// (STDIO-3), stdin writes that honour backpressure, and shutdown by stdin EOF → SIGTERM →
// SIGKILL (STDIO-8). Children get EOF on stdin when the gateway dies, however it dies, so
// servers that exit on stdin close (all SDK servers) never outlive it. Each child leads its own
// process group, and shutdown signals the group, so what the child started goes with it; it runs
// as the configured user/group when given (README "What a stdio backend can reach").
import { spawn } from 'node:child_process'
import type { ChildProcessWithoutNullStreams, SpawnOptionsWithoutStdio } from 'node:child_process'
import { localIdentitySystem, readEnvFiles, resolveChildIdentity } from './child-identity.ts'
import type { Logger } from '../../observability/logger.ts'
import { startTimer } from '../shared/backoff.ts'
import { createLineFramer } from './line-framer.ts'
import { createStderrLog } from './stdio-stderr.ts'

export interface StdioChildOptions {
  command: string
  args: string[]
  // The child's whole environment (nothing of process.env is added).
  env: Record<string, string>
  cwd?: string
  // Run as this user/group (names or ids; the gateway must be root).
  user?: string
  group?: string
  // Variables read from files at each spawn (secrets kept out of the config and the environment).
  envFiles?: Record<string, string>
  maxLineBytes: number
  stderrLinesPerSecond: number
  logger: Logger
}

export interface ChildExit {
  code: number | null
  signal: NodeJS.Signals | null
  // Set when the process could not be spawned at all (for example ENOENT).
  error?: Error
}

export interface StdioChildEvents {
  // One parsed JSON value per stdout line (not yet checked to be JSON-RPC).
  onMessage: (value: unknown) => void
  onExit: (exit: ChildExit) => void
}

export interface StdioChild {
  readonly pid: number | undefined
  // Resolves once the line is handed to stdin within its buffer limit; rejects if the child is gone.
  write(message: object): Promise<void>
  // STDIO-8: end stdin, wait `graceMs`, SIGTERM, wait `graceMs`, SIGKILL; resolves on exit.
  terminate(graceMs: number): Promise<ChildExit>
  readonly exited: Promise<ChildExit>
}

interface QueuedWrite {
  line: string
  resolve: () => void
  reject: (error: Error) => void
}

export function describeExit(exit: ChildExit): string {
  if (exit.error !== undefined) return `could not be started: ${exit.error.message}`
  if (exit.signal !== null) return `exited on signal ${exit.signal}`
  return `exited with code ${String(exit.code)}`
}

// The spawn options of one child: its exact environment, its identity, its own process group.
// Throws when the identity or an env file cannot be resolved (the backend is then down).
function spawnOptions(options: StdioChildOptions): SpawnOptionsWithoutStdio {
  const identity = resolveChildIdentity(options, localIdentitySystem())
  if (!identity.ok) throw new Error(identity.problem)
  return {
    env: { ...options.env, ...readEnvFiles(options.envFiles) },
    cwd: options.cwd,
    ...identity.identity,
    // A new process group led by the child (setsid), signalled as a whole on shutdown.
    detached: true,
    shell: false,
    windowsHide: true,
  }
}

export function spawnStdioChild(options: StdioChildOptions, events: StdioChildEvents): StdioChild {
  const child = spawn(options.command, options.args, { ...spawnOptions(options), stdio: ['pipe', 'pipe', 'pipe'] })
  const { logger } = options
  let exit: ChildExit | undefined
  let settleExit: (exit: ChildExit) => void = () => {}
  const exited = new Promise<ChildExit>((resolve) => { settleExit = resolve })
  const writer = createStdinWriter(child.stdin, logger)
  const output = readChildOutput(child, options, events.onMessage)
  const onExit = (info: ChildExit): void => {
    if (exit !== undefined) return
    exit = info
    writer.fail(new Error(`child ${describeExit(info)}`))
    output.end()
    settleExit(info)
    events.onExit(info)
  }
  child.on('error', (error) => {
    if (child.pid === undefined) onExit({ code: null, signal: null, error })
    else logger.warn({ err: error }, 'stdio backend process error')
  })
  // 'close' comes after stdout ended, so a reply written just before exiting is still read.
  child.on('close', (code, signal) => onExit({ code, signal }))
  return {
    get pid() { return child.pid },
    exited,
    write: (message) => (exit === undefined ? writer.write(`${JSON.stringify(message)}\n`) : Promise.reject(new Error('child has exited'))),
    terminate: (graceMs) => (exit === undefined ? terminateChild(child, exited, { graceMs, logger }) : exited),
  }
}

function readChildOutput(child: ChildProcessWithoutNullStreams, options: StdioChildOptions, onMessage: (value: unknown) => void) {
  const { logger, maxLineBytes } = options
  const framer = createLineFramer({
    maxLineBytes,
    onLine: (line) => parseLine(line, logger, onMessage),
    // STDIO-2: a line over the limit is logged and skipped, never buffered whole.
    onOversized: (byteCount) => logger.warn({ byteCount, maxLineBytes }, 'stdio backend wrote an oversized line; skipped'),
  })
  const stderrLog = createStderrLog({ logger, linesPerSecond: options.stderrLinesPerSecond })
  child.stdout.on('data', (chunk: Buffer) => framer.push(chunk))
  child.stdout.on('end', () => framer.end())
  child.stderr.on('data', (chunk: Buffer) => stderrLog.push(chunk))
  return { end: () => stderrLog.end() }
}

// STDIO-8: close stdin and wait; then SIGTERM and wait; then SIGKILL. Resolves on exit.
async function terminateChild(child: ChildProcessWithoutNullStreams, exited: Promise<ChildExit>, options: { graceMs: number; logger: Logger }): Promise<ChildExit> {
  const exitWithin = (ms: number): Promise<boolean> => new Promise((resolve) => {
    const timer = startTimer(ms, () => resolve(false))
    void exited.then(() => { clearTimeout(timer); resolve(true) })
  })
  child.stdin.end()
  if (!(await exitWithin(options.graceMs))) {
    options.logger.warn({ graceMs: options.graceMs }, 'stdio backend did not exit after stdin closed; sending SIGTERM')
    signalGroup(child, 'SIGTERM')
    if (!(await exitWithin(options.graceMs))) {
      options.logger.warn({ graceMs: options.graceMs }, 'stdio backend did not exit after SIGTERM; sending SIGKILL')
      signalGroup(child, 'SIGKILL')
    }
  }
  const exit = await exited
  // Whatever the child started and left behind in its group goes too.
  signalGroup(child, 'SIGKILL')
  return exit
}

// The child's whole process group (it leads it); the child alone if the group is gone already.
function signalGroup(child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    // ESRCH: no process of the group is left.
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
  }
}

function parseLine(line: string, logger: Logger, onMessage: (value: unknown) => void): void {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch (error) {
    // STDIO-2: the child must write only MCP messages; a bad line is logged and skipped.
    logger.warn({ err: error, lineBytes: Buffer.byteLength(line) }, 'stdio backend wrote a line that is not JSON; skipped')
    return
  }
  try {
    onMessage(value)
  } catch (error) {
    // Whatever a child writes, handling it must not take the gateway down: logged, skipped.
    logger.error({ err: error }, 'handling a stdio backend message failed; skipped')
  }
}

// Writes in order; while stdin is over its high-water mark, later lines wait for 'drain'.
export function createStdinWriter(stdin: NodeJS.WritableStream, logger: Logger) {
  const queue: QueuedWrite[] = []
  let blocked = false
  let failure: Error | undefined

  let scheduled = false
  // Lines queued in one turn of the event loop (every request read in that poll phase) leave in
  // one write: one syscall for many concurrent calls, at no more than a turn's delay.
  const flush = (): void => {
    scheduled = false
    if (blocked || queue.length === 0) return
    const batch = queue.splice(0)
    blocked = !stdin.write(batch.length === 1 ? batch[0].line : batch.map((item) => item.line).join(''))
    for (const item of batch) item.resolve()
  }
  const schedule = (): void => {
    if (scheduled) return
    scheduled = true
    setImmediate(flush)
  }
  stdin.on('drain', () => { blocked = false; flush() })
  // EPIPE and friends once the child is gone: the exit handler fails what is still queued.
  stdin.on('error', (error: Error) => logger.debug({ err: error }, 'stdio backend stdin error'))

  return {
    write(line: string): Promise<void> {
      if (failure !== undefined) return Promise.reject(failure)
      return new Promise<void>((resolve, reject) => {
        queue.push({ line, resolve, reject })
        schedule()
      })
    },
    fail(error: Error): void {
      failure = error
      for (const item of queue.splice(0)) item.reject(error)
    },
  }
}
