// The 2025-11-25 `initialize` handshake toward a legacy backend (LEGACY-C1): what the gateway
// offers, and the check of what the backend answered. Pure; both transports send it themselves.
import { isJsonObject, type JsonObject } from '../jsonrpc.ts'
import type { ProbeReply } from '../era.ts'
import type { ServerInfo } from '../result.ts'
import { LEGACY_BACKEND_VERSIONS, LEGACY_VERSION } from '../version.ts'

// LEGACY-C1 with G8 option B: the gateway offers what it can bridge to a modern client; whether a
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
