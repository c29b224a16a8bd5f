/**
 * Runs a fixture backend (test/fixtures/*.ts) as a real child process.
 *
 * The child prints JSON lines on stdout (see test/fixtures/lib/fixture-cli.ts).
 * `startFixture` resolves once the `ready` line arrives and registers a
 * teardown that stops the child and awaits its exit, so no child outlives the
 * test. `waitForEvent` waits on those lines (`peekEvent` too, without taking
 * the event); neither sleeps or polls, and both reject if the child exits first.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import type { FixtureEvent } from '../fixtures/lib/fixture-cli.ts'

export type { FixtureEvent }
export type EventPredicate = (event: FixtureEvent) => boolean

/** The part of a tap `Test` the helper needs. */
export interface TeardownHost {
  teardown(fn: () => void | Promise<void>): void
}

export interface FixtureProcess {
  url: string
  child: ChildProcess
  /** Resolves with the oldest not-yet-consumed event named `name` (and matching `predicate`). */
  waitForEvent(name: string, predicate?: EventPredicate): Promise<FixtureEvent>
  /**
   * Resolves once such an event is in the backlog (already, or when it arrives unclaimed by a
   * waiter), leaving it there for `waitForEvent`.
   */
  peekEvent(name: string, predicate?: EventPredicate): Promise<FixtureEvent>
}

const KILL_GRACE_MS = 5_000
const STDERR_TAIL_CHARS = 4_000

interface Waiter {
  name: string
  predicate: EventPredicate | undefined
  resolve(event: FixtureEvent): void
  reject(err: Error): void
}

export async function startFixture(t: TeardownHost, scriptPath: string, args: string[] = []): Promise<FixtureProcess> {
  // stdin is a pipe the fixture watches: if this process dies without teardown, the fixture exits.
  const child = spawn(process.execPath, [scriptPath, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, FIXTURE_EXIT_ON_STDIN_END: '1' },
  })
  t.teardown(() => stopChild(child))
  const events = createEventChannel(child, scriptPath)
  const ready = await events.waitForEvent('ready')
  if (typeof ready.url !== 'string') throw new Error(`${scriptPath}: ready event without url`)
  return { url: ready.url, child, waitForEvent: events.waitForEvent, peekEvent: events.peekEvent }
}

type EventChannel = Pick<FixtureProcess, 'waitForEvent' | 'peekEvent'>

function createEventChannel(child: ChildProcess, label: string): EventChannel {
  const backlog: FixtureEvent[] = []
  const waiters = new Set<Waiter>()
  // Peekers never take an event: each one arriving unclaimed is also offered to all of them.
  const peekers = new Set<Waiter>()
  let exitError: Error | undefined
  let stderrTail = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS)
  })
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const event = parseEvent(line)
    if (event === undefined || deliver(waiters, event)) return
    backlog.push(event)
    for (const peeker of peekers) {
      if (!matches(event, peeker.name, peeker.predicate)) continue
      peekers.delete(peeker)
      peeker.resolve(event)
    }
  })
  const fail = (err: Error): void => {
    exitError = err
    for (const waiter of [...waiters, ...peekers]) waiter.reject(err)
    waiters.clear()
    peekers.clear()
  }
  child.once('exit', (code, signal) => fail(new Error(`${label} exited (code ${code}, signal ${signal}) before the awaited event\n${stderrTail}`)))
  child.once('error', fail)
  const awaitEvent = (into: Set<Waiter>, name: string, predicate?: EventPredicate): Promise<FixtureEvent> => {
    if (exitError !== undefined) return Promise.reject(exitError)
    return new Promise((resolve, reject) => into.add({ name, predicate, resolve, reject }))
  }
  const waitForEvent = (name: string, predicate?: EventPredicate): Promise<FixtureEvent> => {
    const index = backlog.findIndex((event) => matches(event, name, predicate))
    if (index >= 0) return Promise.resolve(backlog.splice(index, 1)[0])
    return awaitEvent(waiters, name, predicate)
  }
  const peekEvent = (name: string, predicate?: EventPredicate): Promise<FixtureEvent> => {
    const seen = backlog.find((event) => matches(event, name, predicate))
    return seen !== undefined ? Promise.resolve(seen) : awaitEvent(peekers, name, predicate)
  }
  return { waitForEvent, peekEvent }
}

function parseEvent(line: string): FixtureEvent | undefined {
  try {
    const value: unknown = JSON.parse(line)
    const isEvent = typeof value === 'object' && value !== null && typeof (value as FixtureEvent).event === 'string'
    return isEvent ? (value as FixtureEvent) : undefined
  } catch {
    return undefined
  }
}

function matches(event: FixtureEvent, name: string, predicate: EventPredicate | undefined): boolean {
  return event.event === name && (predicate === undefined || predicate(event))
}

/** Hands `event` to the first waiter it matches; false when nobody wanted it. */
function deliver(waiters: Set<Waiter>, event: FixtureEvent): boolean {
  for (const waiter of waiters) {
    if (!matches(event, waiter.name, waiter.predicate)) continue
    waiters.delete(waiter)
    waiter.resolve(event)
    return true
  }
  return false
}

/** SIGTERM, then SIGKILL if the child ignores it; resolves once the child has exited. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  const escalation = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS)
  escalation.unref()
  try {
    await exited
  } finally {
    clearTimeout(escalation)
  }
}
