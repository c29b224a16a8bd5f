// Era probe toward a stdio backend (STDIO-11, STDIO-12, DISC-4): `server/discover` with the
// preferred modern version first, then, when the answer means legacy, the `initialize` handshake
// (LEGACY-C1). The verdicts are the protocol's (protocol/era.ts, protocol/legacy/initialize.ts);
// `probeEra` only sequences them.
import { buildModernMeta, classifyDiscover, type ProbeReply } from '../../protocol/era.ts'
import type { JsonObject } from '../../protocol/jsonrpc.ts'
import { buildInitializeParams, checkInitializeReply } from '../../protocol/legacy/initialize.ts'
import type { ServerInfo } from '../../protocol/result.ts'
import type { Era } from '../backend.ts'
import { CallSignal } from '../shared/call-signal.ts'
import type { StdioSession } from './stdio-session.ts'

export interface ProbeChannel {
  // Resolves with the reply, `{ ok: 'timeout' }` when none came in time, `{ ok: 'gone' }` when the
  // child exited first; never rejects.
  request(method: string, params: JsonObject): Promise<ProbeReply>
  notify(method: string, params?: JsonObject): void
}

export type ProbeVerdict =
  | { up: true; era: 'modern' | 'legacy'; protocolVersion: string; capabilities: JsonObject; note: string }
  | { up: false; era: Era; reason: string }

export async function probeEra(channel: ProbeChannel, clientInfo: ServerInfo): Promise<ProbeVerdict> {
  const discover = classifyDiscover({ transport: 'stdio', reply: await channel.request('server/discover', { _meta: buildModernMeta(clientInfo) }) })
  if (discover.kind === 'modern') {
    const { protocolVersion, capabilities, note } = discover
    return { up: true, era: 'modern', protocolVersion, capabilities, note }
  }
  if (discover.kind === 'down') return { up: false, era: discover.era, reason: discover.reason }
  const verdict = checkInitializeReply(await channel.request('initialize', buildInitializeParams(clientInfo)))
  if (!verdict.ok) return { up: false, era: 'legacy', reason: verdict.reason }
  channel.notify('notifications/initialized')
  return { up: true, era: 'legacy', protocolVersion: verdict.protocolVersion, capabilities: verdict.capabilities, note: discover.note }
}

// Probe requests on a stdio session, each given up after `timeoutMs` (initialize is never cancelled,
// LEGACY-13, so a timed-out probe request is only forgotten, not cancelled).
export function createProbeChannel(session: StdioSession, nextId: () => string, timeoutMs: number): ProbeChannel {
  return {
    request: (method, params) => new Promise((resolve) => {
      const id = nextId()
      const deadline = new CallSignal(undefined, timeoutMs)
      deadline.signal.addEventListener('abort', () => {
        session.forget(id)
        resolve({ ok: 'timeout', detail: `no answer within ${timeoutMs} ms` })
      }, { once: true })
      session.request({ id, method, params }, (reply) => {
        deadline.dispose()
        resolve(reply.ok === 'gone' ? { ok: 'gone', detail: `child ${reply.detail}` } : reply)
      })
    }),
    notify: (method, params) => session.notify(method, params),
  }
}
