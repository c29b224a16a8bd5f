// Closed-loop load: `connections` workers, each sending its next request when the previous one
// has been read to the end. Bounded by count and by time; stops early when a target only fails.
// Latency from process.hrtime.bigint() (ns), kept in a preallocated Float64Array.
import type { Dispatcher } from 'undici'
import type { Json, OutgoingRequest } from './mcp-messages.ts'
import { describeFailure, exchange, isResult } from './rpc-exchange.ts'

const MAX_ERRORS = 1_000

export interface LoadSpec {
  dispatcher: Dispatcher
  path: string
  connections: number
  maxRequests: number
  durationMs: number
  createRequest(seq: number): OutgoingRequest
  expectedNotifications: number
  onNotification?(message: Json, receivedNs: bigint): void
}

export interface LoadResult {
  completed: number
  errors: number
  elapsedNs: number
  latenciesNs: Float64Array
  firstError?: string
}

interface LoadState {
  next: number
  completed: number
  errors: number
  stop: boolean
  firstError?: string
  latenciesNs: Float64Array
}

function describeError(err: unknown): string {
  if (err instanceof Error) return (err as Error & { code?: string }).code ?? err.message
  return String(err)
}

async function attempt(spec: LoadSpec, seq: number): Promise<string | undefined> {
  try {
    const result = await exchange(spec.dispatcher, {
      path: spec.path,
      request: spec.createRequest(seq),
      onNotification: spec.onNotification
    })
    if (!isResult(result)) return describeFailure(result)
    if (result.notifications < spec.expectedNotifications) return `${result.notifications} of ${spec.expectedNotifications} notifications`
    return undefined
  } catch (err) {
    return describeError(err)
  }
}

async function runWorker(spec: LoadSpec, state: LoadState): Promise<void> {
  while (!state.stop && state.next < spec.maxRequests) {
    const seq = state.next++
    const startNs = process.hrtime.bigint()
    const failure = await attempt(spec, seq)
    if (failure === undefined) {
      state.latenciesNs[state.completed++] = Number(process.hrtime.bigint() - startNs)
      continue
    }
    state.errors++
    state.firstError ??= failure
    if (state.errors >= MAX_ERRORS) state.stop = true
  }
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const state: LoadState = { next: 0, completed: 0, errors: 0, stop: false, latenciesNs: new Float64Array(spec.maxRequests) }
  const timer = setTimeout(() => {
    state.stop = true
  }, spec.durationMs)
  const startNs = process.hrtime.bigint()
  const workers = Array.from({ length: spec.connections }, () => runWorker(spec, state))
  await Promise.all(workers)
  clearTimeout(timer)
  return {
    completed: state.completed,
    errors: state.errors,
    elapsedNs: Number(process.hrtime.bigint() - startNs),
    latenciesNs: state.latenciesNs.subarray(0, state.completed),
    firstError: state.firstError
  }
}
