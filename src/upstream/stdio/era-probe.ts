// Era probe toward a stdio backend (STDIO-11, STDIO-12, DISC-4): `server/discover` with the
// preferred modern version first; a DiscoverResult or a recognized modern error means modern; any
// other error, an invalid answer or silence means legacy, and the `initialize` handshake follows
// (LEGACY-C1). The verdicts are pure functions of the replies; `probeEra` only sequences them.
import { RPC } from '../../errors.ts'
import type { JsonObject } from '../../protocol/jsonrpc.ts'
import { isJsonObject } from '../../protocol/jsonrpc.ts'
import { META } from '../../protocol/meta.ts'
import type { ServerInfo } from '../../protocol/result.ts'
import { LEGACY_BACKEND_VERSIONS, LEGACY_VERSION, MODERN_VERSION, MODERN_VERSIONS } from '../../protocol/version.ts'
import type { Era } from '../backend.ts'
import { LEGACY_CLIENT_CAPABILITIES } from '../legacy/legacy-reply.ts'
import type { ChildReply, StdioSession } from './stdio-session.ts'


// The gateway's own identity, sent as clientInfo.
export type ClientInfo = ServerInfo

export type ProbeReply = ChildReply | { ok: 'timeout'; detail: string }

export interface ProbeChannel {
  // Resolves with the reply, or `{ ok: 'timeout' }` when none came in time; never rejects.
  request(method: string, params: JsonObject): Promise<ProbeReply>
  notify(method: string, params?: JsonObject): void
}

export type EraVerdict =
  | { up: true; era: 'modern' | 'legacy'; protocolVersion: string; capabilities: JsonObject; note: string }
  | { up: false; era: Era; reason: string }

export type DiscoverOutcome = { kind: 'decided'; verdict: EraVerdict } | { kind: 'legacy'; note: string }

export function buildModernMeta(clientInfo: ClientInfo): JsonObject {
  return {
    [META.protocolVersion]: MODERN_VERSION,
    [META.clientCapabilities]: {},
    [META.clientInfo]: clientInfo,
  }
}

function pickModernVersion(supported: unknown, capabilities: JsonObject, note: string): EraVerdict {
  const offered = Array.isArray(supported) ? supported.filter((entry) => typeof entry === 'string') : []
  const version = MODERN_VERSIONS.find((entry) => offered.includes(entry))
  if (version === undefined) {
    return { up: false, era: 'modern', reason: `no protocol version in common (backend supports ${JSON.stringify(offered)})` }
  }
  return { up: true, era: 'modern', protocolVersion: version, capabilities, note }
}

export function classifyDiscoverReply(reply: ProbeReply): DiscoverOutcome {
  if (reply.ok === true) {
    const { result } = reply
    if (Array.isArray(result.supportedVersions) && isJsonObject(result.capabilities)) {
      return { kind: 'decided', verdict: pickModernVersion(result.supportedVersions, result.capabilities, 'DiscoverResult') }
    }
    return { kind: 'legacy', note: 'server/discover answered with something other than a DiscoverResult' }
  }
  if (reply.ok === false) {
    const { code, data } = reply.error
    if (code === RPC.unsupportedVersion && isJsonObject(data) && Array.isArray(data.supported)) {
      return { kind: 'decided', verdict: pickModernVersion(data.supported, {}, 'UnsupportedProtocolVersion error') }
    }
    if (code === RPC.missingClientCapability) {
      const verdict: EraVerdict = { up: true, era: 'modern', protocolVersion: MODERN_VERSION, capabilities: {}, note: 'MissingRequiredClientCapability error' }
      return { kind: 'decided', verdict }
    }
    // STDIO-11: any other error means legacy, whatever its code (ERR-2 codes above are modern-only).
    return { kind: 'legacy', note: `server/discover answered error ${code}` }
  }
  if (reply.ok === 'gone') return { kind: 'decided', verdict: { up: false, era: 'unknown', reason: `child ${reply.detail} during the era probe` } }
  return { kind: 'legacy', note: `server/discover: ${reply.detail}` }
}

export function classifyInitializeReply(reply: ProbeReply, note: string): EraVerdict {
  if (reply.ok === true) {
    const { protocolVersion, capabilities } = reply.result
    if (typeof protocolVersion !== 'string' || !LEGACY_BACKEND_VERSIONS.includes(protocolVersion)) {
      // LEGACY-C1: a version the gateway does not speak ends the attempt.
      return { up: false, era: 'legacy', reason: `initialize negotiated unsupported protocol version ${JSON.stringify(protocolVersion)}` }
    }
    return { up: true, era: 'legacy', protocolVersion, capabilities: isJsonObject(capabilities) ? capabilities : {}, note }
  }
  if (reply.ok === false) return { up: false, era: 'legacy', reason: `initialize failed: ${reply.error.message} (${reply.error.code})` }
  if (reply.ok === 'gone') return { up: false, era: 'legacy', reason: `child ${reply.detail} during initialize` }
  return { up: false, era: 'legacy', reason: `initialize: ${reply.detail}` }
}

export async function probeEra(channel: ProbeChannel, clientInfo: ClientInfo): Promise<EraVerdict> {
  const discover = classifyDiscoverReply(await channel.request('server/discover', { _meta: buildModernMeta(clientInfo) }))
  if (discover.kind === 'decided') return discover.verdict
  // LEGACY-C1: offer the newest legacy version and the capabilities the gateway bridges (G8 option B).
  const params = { protocolVersion: LEGACY_VERSION, capabilities: LEGACY_CLIENT_CAPABILITIES, clientInfo }
  const verdict = classifyInitializeReply(await channel.request('initialize', params), discover.note)
  if (verdict.up) channel.notify('notifications/initialized')
  return verdict
}

// Probe requests on a stdio session, each given up after `timeoutMs` (initialize is never cancelled,
// LEGACY-13, so a timed-out probe request is only forgotten, not cancelled).
export function createProbeChannel(session: StdioSession, nextId: () => string, timeoutMs: number): ProbeChannel {
  return {
    request: (method, params) => new Promise((resolve) => {
      const id = nextId()
      const timer = setTimeout(() => {
        session.forget(id)
        resolve({ ok: 'timeout', detail: `no answer within ${timeoutMs} ms` })
      }, timeoutMs)
      timer.unref()
      session.request({ id, method, params }, (reply) => {
        clearTimeout(timer)
        resolve(reply)
      })
    }),
    notify: (method, params) => session.notify(method, params),
  }
}
