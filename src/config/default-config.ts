// The embedded default: with no config given, `npm start` fronts the published
// @modelcontextprotocol/server-everything over stdio, so one command serves real MCP traffic.
import { createRequire } from 'node:module'
import type { JsonObject } from '../protocol/jsonrpc.ts'

const require = createRequire(import.meta.url)

export function createDefaultConfig(): JsonObject {
  const entry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js')
  return {
    backends: [
      {
        name: 'everything',
        transport: 'stdio',
        command: process.execPath,
        args: [entry, 'stdio'],
        env: {},
        namespace: '',
      },
    ],
  }
}
