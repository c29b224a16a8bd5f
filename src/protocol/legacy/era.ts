// Which era a POST belongs to (LEGACY-1, VER-3, HTTP-11). Pure: first match wins.
//   a. modern `_meta` on a request or notification → modern (any Mcp-Session-Id is ignored);
//   b. `initialize` without it → legacy handshake (VER-3: no MCP-Protocol-Version expected);
//   c. an Mcp-Session-Id → legacy (the session is checked there: unknown → 404);
//   d. MCP-Protocol-Version naming a legacy version, no session → legacy (it answers 400, LEGACY-4);
//   e. anything else → modern validation (400 -32020 / -32602 for what is missing).
import type { IncomingHttpHeaders } from 'node:http'
import type { Classified } from '../jsonrpc.ts'
import { hasModernMeta } from '../meta.ts'
import { isLegacyVersion } from './version.ts'

export const SESSION_HEADER = 'mcp-session-id'
const VERSION_HEADER = 'mcp-protocol-version'

export function getSessionHeader(headers: IncomingHttpHeaders): string | undefined {
  const value = headers[SESSION_HEADER]
  return typeof value === 'string' ? value : undefined
}

export function isLegacyPost(headers: IncomingHttpHeaders, classified: Classified): boolean {
  if (classified.kind === 'invalid') return false
  const hasSession = getSessionHeader(headers) !== undefined
  // LEGACY-7: only a legacy client may POST a response (to the gateway's own request).
  if (classified.kind === 'response') return hasSession
  if (hasModernMeta(classified.message.params)) return false
  if (classified.kind === 'request' && classified.message.method === 'initialize') return true
  return hasSession || isLegacyVersion(headers[VERSION_HEADER])
}
