// A backend's era from its answer to the `server/discover` probe, for both transports (ERA-1,
// ERA-3, ERA-4, STDIO-11, DISC-2, VER-6). Pure: the backends send the probe, hand over what came
// back, and follow the verdict (modern: use it; legacy: run `initialize`; down: re-probe later).
import { RPC } from '../errors.ts'
import { isJsonObject, type JsonObject, type JsonRpcErrorObject } from './jsonrpc.ts'
import { META } from './meta.ts'
import type { ServerInfo } from './result.ts'
import { MODERN_VERSION, MODERN_VERSIONS } from './version.ts'

// What came back for one probe request: a result, a JSON-RPC error, a response that is not usable
// JSON-RPC (HTTP: a status without one), no answer in time, or no answer at all (HTTP: unreachable;
// stdio: the child exited). The stdio reply type and UpstreamReply are both assignable to it.
export type ProbeReply =
  | { ok: true; result: JsonObject }
  | { ok: false; error: JsonRpcErrorObject }
  | { ok: 'invalid' | 'timeout' | 'gone'; detail: string }

export interface ProbeOutcome {
  transport: 'http' | 'stdio'
  reply: ProbeReply
  // HTTP only: the status of the response, when there was one.
  httpStatus?: number
}

export type DiscoverVerdict =
  | { kind: 'modern'; protocolVersion: string; capabilities: JsonObject; note: string }
  | { kind: 'legacy'; note: string }
  // `era` is what the answer proved ('unknown': nothing, so a cached era stands, ERA-3).
  | { kind: 'down'; era: 'modern' | 'unknown'; reason: string }

// ERA-1, ERA-2: HTTP statuses whose body, unless it is a recognized modern error, means legacy.
const LEGACY_STATUSES: ReadonlySet<number> = new Set([400, 404, 405])

// The `_meta` of the gateway's own modern requests (server/discover, subscriptions/listen): the
// preferred version, no client capabilities (none can be promised for every client), its identity.
export function buildModernMeta(clientInfo: ServerInfo): JsonObject {
  return { [META.protocolVersion]: MODERN_VERSION, [META.clientCapabilities]: {}, [META.clientInfo]: clientInfo }
}

// The first of the gateway's versions (in its order of preference) that the backend offers.
function pickVersion(offered: unknown[]): string | undefined {
  return MODERN_VERSIONS.find((version) => offered.includes(version))
}

function modernOrDown(offered: unknown[], capabilities: JsonObject, note: string): DiscoverVerdict {
  const protocolVersion = pickVersion(offered)
  // VER-6: no version in common → an error, never a fallback to initialize.
  if (protocolVersion === undefined) return { kind: 'down', era: 'modern', reason: `no protocol version in common (backend supports ${JSON.stringify(offered)})` }
  return { kind: 'modern', protocolVersion, capabilities, note }
}

function classifyResult(result: JsonObject): DiscoverVerdict {
  // DISC-2, STDIO-11: a DiscoverResult → modern, with a mutually supported version.
  if (Array.isArray(result.supportedVersions) && isJsonObject(result.capabilities)) {
    return modernOrDown(result.supportedVersions, result.capabilities, 'DiscoverResult')
  }
  // STDIO-11, ERA-1: anything that is not a modern answer means legacy.
  return { kind: 'legacy', note: 'server/discover answered with something other than a DiscoverResult' }
}

// ERA-1, STDIO-11: the recognized modern errors; undefined for any other error.
function classifyModernError(error: JsonRpcErrorObject): DiscoverVerdict | undefined {
  const { code, data, message } = error
  if (code === RPC.unsupportedVersion) {
    // VER-6, STDIO-11: use a version from data.supported, do not fall back. The error carries no
    // capabilities, so none are known ({}). Without data.supported it is no modern error.
    if (!isJsonObject(data) || !Array.isArray(data.supported)) return undefined
    return modernOrDown(data.supported, {}, 'UnsupportedProtocolVersion error')
  }
  // ERA-1: -32021 (a capability the gateway cannot declare for every client) and -32020 come only
  // from a modern server (the -32020..-32099 codes keep their specified meaning): no fallback.
  if (code === RPC.missingClientCapability || code === RPC.headerMismatch) {
    return { kind: 'down', era: 'modern', reason: `server/discover refused by a modern backend: ${message} (${code})` }
  }
  return undefined
}

function classifyError(error: JsonRpcErrorObject, outcome: ProbeOutcome): DiscoverVerdict {
  const modern = classifyModernError(error)
  if (modern !== undefined) return modern
  const { code } = error
  // ERA-4: every modern server implements server/discover, so -32601/-32602 mean legacy, whatever the status.
  if (code === RPC.methodNotFound || code === RPC.invalidParams) return { kind: 'legacy', note: `server/discover answered error ${code}` }
  const status = outcome.httpStatus
  // STDIO-11: any other error means legacy, never keyed on one code; ERA-1 on HTTP: on 400 (and a
  // 2xx, 404, 405) anything but a modern error means legacy.
  if (outcome.transport === 'stdio' || status === undefined || status < 300 || LEGACY_STATUSES.has(status)) {
    return { kind: 'legacy', note: status === undefined ? `server/discover answered error ${code}` : `server/discover answered HTTP ${status} with error ${code}` }
  }
  // 401/403 (auth), 5xx (broken for now): no era answer (ERA-3: re-probe later).
  return { kind: 'down', era: 'unknown', reason: `server/discover answered HTTP ${status} with error ${code}` }
}

// No usable JSON-RPC answer.
function classifySilence(outcome: ProbeOutcome, reply: Extract<ProbeReply, { detail: string }>): DiscoverVerdict {
  // STDIO-11: no answer in time, or an answer that is not JSON-RPC → legacy.
  if (outcome.transport === 'stdio' && reply.ok !== 'gone') return { kind: 'legacy', note: `server/discover: ${reply.detail}` }
  const status = outcome.httpStatus
  if (reply.ok === 'invalid') {
    // ERA-1, ERA-2: 400/404/405 with an empty or non-JSON-RPC body → legacy.
    if (status !== undefined && LEGACY_STATUSES.has(status)) return { kind: 'legacy', note: `server/discover answered HTTP ${status} without a JSON-RPC error` }
    // A 2xx, 401/403 or 5xx without a JSON-RPC body: no era answer (ERA-3: re-probe later).
    return { kind: 'down', era: 'unknown', reason: `server/discover answered HTTP ${String(status)} without a usable reply` }
  }
  // ERA-3: the child exited, or the HTTP backend is unreachable or silent: no era answer, the
  // cached era stands. (On HTTP silence is no era answer: ERA-1 reads the response.)
  return { kind: 'down', era: 'unknown', reason: `${reply.detail} during the era probe` }
}

export function classifyDiscover(outcome: ProbeOutcome): DiscoverVerdict {
  const { reply } = outcome
  if (reply.ok === true) return classifyResult(reply.result)
  if (reply.ok === false) return classifyError(reply.error, outcome)
  return classifySilence(outcome, reply)
}
