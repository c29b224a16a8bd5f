// Start-up lines a user can read (README "Operations"): the MCP URL, then, once every backend's
// first probe settled, one line per backend: name, transport, era, number of tools, or why it is
// down in words that say what to check.
import type { FastifyInstance } from 'fastify'
import type { BackendConfig } from '../config/types.ts'
import type { BackendStatus } from '../upstream/backend.ts'
import type { BackendEntry } from '../routing/backend-set.ts'
import { LIST_KINDS } from '../routing/list-kinds.ts'

export async function logStartup(app: FastifyInstance, mcpUrl: string): Promise<void> {
  app.log.info({ url: mcpUrl }, `MCP endpoint: ${mcpUrl}`)
  await app.gateway.probed()
  for (const entry of app.gateway.backends.entries) {
    const status = entry.backend.status()
    const fields = { backend: status.name, transport: status.transport, era: status.era, protocolVersion: status.protocolVersion }
    if (!status.up) {
      app.log.warn({ ...fields, reason: status.reason }, `backend ${status.name} (${status.transport}) is DOWN: ${explainDown(status, entry.config)}`)
      continue
    }
    const tools = await countTools(app, entry)
    app.log.info({ ...fields, tools }, `backend ${status.name}: ${status.transport}, ${eraText(status)}, ${tools === undefined ? 'tools unknown' : `${tools} tool(s)`}`)
  }
}

function eraText(status: BackendStatus): string {
  const version = status.protocolVersion ?? 'version unknown'
  return status.era === 'legacy' ? `${version} (legacy sessions)` : version
}

async function countTools(app: FastifyInstance, entry: BackendEntry): Promise<number | undefined> {
  if (entry.backend.capabilities().tools === undefined) return 0
  try {
    return (await app.gateway.catalog.get(entry.backend, LIST_KINDS.get('tools/list')!)).items.length
  } catch {
    return undefined
  }
}

// The probe's reason is the gateway's own text (src/upstream/): it is turned into advice here.
export function explainDown(status: BackendStatus, config: BackendConfig): string {
  const reason = status.reason ?? 'unknown reason'
  if (config.transport === 'stdio') {
    if (/could not be started/.test(reason)) return `${reason}; check "command" (${config.command}) and "args"`
    return `${reason}; run "${[config.command, ...config.args].join(' ')}" by hand to see why it stops (its stderr is logged at debug)`
  }
  const url = config.url
  if (/ECONNREFUSED/.test(reason)) return `nothing is listening at ${url}; start that server or correct "url" (${reason})`
  if (/ENOTFOUND|EAI_AGAIN/.test(reason)) return `the host name in ${url} does not resolve; correct "url" (${reason})`
  if (/did not answer in time/.test(reason)) return `no answer from ${url} within timeoutMs (${config.timeoutMs} ms); is it an MCP endpoint, and is it overloaded? (${reason})`
  if (/credentials/.test(reason)) return `${url} refused the gateway's credentials; check "headers" or "auth" of this backend (${reason})`
  if (/HTTP \d{3}|invalid reply|without a usable reply/.test(reason)) return `${url} answered, but not as an MCP server; check the path of "url" (often /mcp) (${reason})`
  return reason
}
