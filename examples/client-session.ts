// A 2026-07-28 client session against a running gateway (npm start), with the official SDK v2
// client: discover, list the tools, call echo, and a long-running tool with progress.
//   npm exec -- node examples/client-session.ts [http://127.0.0.1:8080/mcp]
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'

const url = new URL(process.argv[2] ?? 'http://127.0.0.1:8080/mcp')
const client = new Client({ name: 'example', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
await client.connect(new StreamableHTTPClientTransport(url))

const { tools } = await client.listTools()
console.log(`${tools.length} tools:`, tools.map((tool) => tool.name).join(', '))

const echo = await client.callTool({ name: 'echo', arguments: { message: 'hello through the gateway' } })
console.log('echo →', JSON.stringify(echo.content))

const long = await client.callTool(
  { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 3 } },
  { onprogress: (p) => console.log(`progress ${p.progress}/${p.total}`) },
)
console.log('long-running →', JSON.stringify(long.content))
await client.close()
