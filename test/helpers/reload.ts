// Shared by the reload tests: a config entry for an SDK fixture backend, the tool names listed.
import { writeFileSync } from 'node:fs'
import type { FixtureProcess } from './backend-process.ts'
import type { GatewayProcess } from './gateway-process.ts'
import type { RawMcpClient } from './mcp-client.ts'

export const ADMIN_TOKEN = 'reload-admin-token-0123456789'

export function httpBackend(name: string, fixture: FixtureProcess): Record<string, unknown> {
  return { name, transport: 'http', url: fixture.url, namespace: name }
}

export async function toolNames(raw: RawMcpClient): Promise<string[]> {
  const reply = await raw.rpc('tools/list')
  return (reply.json.result.tools as Array<{ name: string }>).map((tool) => tool.name)
}

// Rewrites the config file, sends SIGHUP and resolves with the reload's log line.
export async function reloadBySignal(gw: GatewayProcess, path: string, config: unknown): Promise<Record<string, unknown>> {
  writeFileSync(path, typeof config === 'string' ? config : JSON.stringify(config))
  const from = gw.lines.length
  gw.child.kill('SIGHUP')
  return JSON.parse(await gw.waitForLine(/"config reload/, from)) as Record<string, unknown>
}
