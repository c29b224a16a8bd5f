// The hostile corpus (issue 11 item 13): a few hundred seeded malformed requests over raw sockets
// against a gateway process. Every response must be a well-formed HTTP response, never a 5xx, and
// every 4xx must carry a JSON-RPC error body (a dual-era client reads a bare 400 as "legacy
// server"), including what the HTTP parser refuses; the gateway's RSS must stay bounded.
// Before: QUERY → 500, parser refusals answered with Fastify's own JSON ({"error":"Bad Request"…}),
// OPTIONS/PROPFIND → 404. The seed is fixed: a failure names the request that caused it.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { startGatewayProcess, writeConfig } from '../helpers/gateway-process.ts'
import { hostileCorpus } from '../helpers/hostile-corpus.ts'
import { openRaw, parseResponse, type RawResponse } from '../helpers/raw-http.ts'

const SEED = 0x11_13
const SIZE = 400
const WARM_UP = 60
const CONCURRENCY = 8
const MAX_RSS_GROWTH_MB = 40

const gateway = await startGatewayProcess(t, writeConfig({ backends: [], logLevel: 'info' }))
const port = Number(new URL(gateway.url).port)

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024
}

// Sends one request, half-closes (so an incomplete body ends at EOF) and reads until the gateway
// closes. 1xx interim responses (Expect: 100-continue) are skipped.
async function exchange(request: string): Promise<{ response: RawResponse | undefined; raw: string }> {
  const conn = await openRaw(t, port)
  conn.socket.end(request)
  await conn.closed
  let data = conn.received()
  while (/^HTTP\/1\.1 1\d\d /.test(data.toString('latin1'))) data = data.subarray(data.indexOf('\r\n\r\n') + 4)
  return { response: parseResponse(data), raw: data.toString('latin1') }
}

async function runAll(requests: string[], check: (request: string, result: Awaited<ReturnType<typeof exchange>>) => void): Promise<void> {
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < requests.length) {
      const request = requests[next++]
      check(request, await exchange(request))
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
}

t.test(`${SIZE} seeded malformed requests → well-formed responses, no 5xx, a JSON-RPC error on every 4xx, bounded RSS`, async (t) => {
  await runAll(hostileCorpus(SEED + 1, WARM_UP), () => {})
  const before = rssMb(gateway.child.pid!)
  const statuses = new Map<number, number>()
  const problems: string[] = []
  let answered = 0
  await runAll(hostileCorpus(SEED, SIZE), (request, { response, raw }) => {
    const shown = JSON.stringify(request.slice(0, 160))
    if (raw === '') return // no answer at all (CONNECT, a reset): nothing malformed was sent back
    if (response === undefined) return void problems.push(`${shown} → not an HTTP response: ${JSON.stringify(raw.slice(0, 120))}`)
    answered++
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
    if (request.startsWith('HEAD ')) return // no body by definition (RFC 9110 §9.3.2)
    const length = response.headers['content-length']
    if (length !== undefined && Buffer.byteLength(response.body) !== Number(length)) problems.push(`${shown} → body shorter than its Content-Length`)
    if (response.status >= 500) problems.push(`${shown} → ${response.status} ${response.body.slice(0, 120)}`)
    const isError = response.status >= 400 && response.status < 500
    if (isError && !(response.json?.jsonrpc === '2.0' && typeof response.json?.error?.code === 'number')) {
      problems.push(`${shown} → ${response.status} without a JSON-RPC error: ${JSON.stringify(response.body.slice(0, 120))}`)
    }
  })
  const growth = rssMb(gateway.child.pid!) - before
  t.same(problems, [], 'every response well formed, no 5xx, every 4xx with a JSON-RPC error')
  t.ok(answered >= SIZE * 0.9, `${answered} of ${SIZE} requests answered`)
  t.ok(growth < MAX_RSS_GROWTH_MB, `RSS growth ${growth.toFixed(1)} MB after ${SIZE} requests (bound ${MAX_RSS_GROWTH_MB} MB)`)
  t.comment(`statuses: ${[...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ')}`)
})

t.test('QUERY on the endpoint → 405 with Allow and a JSON-RPC error, not 500', async (t) => {
  const { response } = await exchange('QUERY /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}')
  t.equal(response?.status, 405)
  t.equal(response?.headers.allow, 'POST')
  t.match(response?.json, { jsonrpc: '2.0', error: { code: -32600 } })
})
