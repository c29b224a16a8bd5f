// The 2025-11-25 `initialize` handshake, both ways. Pure.
// Toward a legacy backend (LEGACY-C1): what the gateway offers, and the check of what the backend
// answered; both transports send it themselves. From a legacy client (LEGACY-2, LEGACY-16): the gateway
// answers it itself.
import { isJsonObject, type JsonObject } from '../jsonrpc.ts'
import type { ProbeReply } from '../era.ts'
import type { ServerInfo } from '../result.ts'
import { LEGACY_BACKEND_VERSIONS, LEGACY_VERSION } from '../version.ts'
import { readClientInfo, type ClientInfo } from './session-token.ts'
import { negotiateLegacyVersion } from './version.ts'

// LEGACY-C1: the gateway offers what it can bridge to a modern client; whether a
// given request is answered depends on the capabilities that client declares (MRTR-4, CAP-2).
export const LEGACY_CLIENT_CAPABILITIES: JsonObject = Object.freeze({ elicitation: { form: {}, url: {} }, sampling: {}, roots: {} })

// LEGACY-C1: the newest legacy version the gateway speaks, and the capabilities it bridges.
export function buildInitializeParams(clientInfo: ServerInfo): JsonObject {
  return { protocolVersion: LEGACY_VERSION, capabilities: LEGACY_CLIENT_CAPABILITIES, clientInfo }
}

export type InitializeVerdict =
  | { ok: true; protocolVersion: string; capabilities: JsonObject }
  | { ok: false; reason: string }

export function checkInitializeReply(reply: ProbeReply): InitializeVerdict {
  if (reply.ok === false) return { ok: false, reason: `initialize failed: ${reply.error.message} (${reply.error.code})` }
  if (reply.ok === 'gone') return { ok: false, reason: `${reply.detail} during initialize` }
  if (reply.ok !== true) return { ok: false, reason: `initialize: ${reply.detail}` }
  const { protocolVersion, capabilities } = reply.result
  // LEGACY-C1: a version the gateway does not speak ends the attempt.
  if (typeof protocolVersion !== 'string' || !LEGACY_BACKEND_VERSIONS.includes(protocolVersion)) {
    return { ok: false, reason: `initialize negotiated unsupported protocol version ${JSON.stringify(protocolVersion)}` }
  }
  return { ok: true, protocolVersion, capabilities: isJsonObject(capabilities) ? capabilities : {} }
}

// From a legacy client (LEGACY-2).
export interface InitializeParams {
  // What the client asked for, and what it gets (LEGACY-2: its own when spoken, else the newest).
  requested: string
  version: string
  capabilities: JsonObject
  clientInfo: ClientInfo
}

export type InitializeCheck = { ok: true; params: InitializeParams } | { ok: false; detail: string }

// LEGACY-2: protocolVersion, capabilities and clientInfo are all required.
export function readInitializeParams(params: JsonObject | undefined): InitializeCheck {
  const requested = params?.protocolVersion
  if (typeof requested !== 'string') return { ok: false, detail: 'initialize: protocolVersion (string) is required' }
  if (!isJsonObject(params?.capabilities)) return { ok: false, detail: 'initialize: capabilities (object) is required' }
  const clientInfo = readClientInfo(params.clientInfo)
  if (clientInfo === undefined) return { ok: false, detail: 'initialize: clientInfo with name and version (strings) is required' }
  return { ok: true, params: { requested, version: negotiateLegacyVersion(requested), capabilities: params.capabilities, clientInfo } }
}

export function buildInitializeResult(version: string, capabilities: JsonObject, serverInfo: ServerInfo): JsonObject {
  return { protocolVersion: version, capabilities, serverInfo: { name: serverInfo.name, version: serverInfo.version } }
}
