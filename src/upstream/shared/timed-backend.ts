// Every request to a backend timed, whoever sends it (a client's call, a list fetch, a listen's
// subscription change): the backend seen through a thin wrapper whose request() reports its
// duration and outcome (mcp_gateway_upstream_request_duration_seconds).
import type { Backend } from '../backend.ts'
import { clockMs, secondsSince } from '../../observability/clock.ts'

export type RequestOutcome = 'ok' | 'error' | 'upstream_failure' | 'cancelled'

export type ObserveRequest = (backend: string, outcome: RequestOutcome, seconds: number) => void

export function timedBackend(backend: Backend, observe: ObserveRequest): Backend {
  const timed: Backend = {
    name: backend.name,
    transport: backend.transport,
    start: () => backend.start(),
    status: () => backend.status(),
    capabilities: () => backend.capabilities(),
    close: () => backend.close(),
    async request(call) {
      const started = clockMs()
      let outcome: RequestOutcome
      try {
        const reply = await backend.request(call)
        outcome = reply.ok ? 'ok' : 'error'
        return reply
      } catch (error) {
        // The client went away (CANCEL-1) or the gateway got no answer (down, timeout, bad reply).
        outcome = call.signal.aborted ? 'cancelled' : 'upstream_failure'
        throw error
      } finally {
        observe(backend.name, outcome!, secondsSince(started))
      }
    },
  }
  if (backend.listen) timed.listen = (filter, sink) => backend.listen!(filter, sink)
  return timed
}
