// The SDK-based peers, fetched on demand with `npm exec --yes --package=<pkg>@<pinned>` (never
// installed as dependencies). npm exec only resolves the CLI's entry file; the peer then runs as
// `node <entry>` so that /proc measures the proxy itself, not an npm wrapper. Both are held to
// loopback: supergateway through the bench/loopback.cjs preload, mcp-proxy with --host.
import { execFile } from 'node:child_process'
import { realpathSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { assertLoopbackListener } from './loopback-guard.ts'
import { resolveStdioBackend } from './fixture-targets.ts'
import {
  createChildEnv, describeReason, elapsedMs, PEERS, type BenchContext, type PeerName, type PeerResolver, type TargetSlot
} from './context.ts'

const run = promisify(execFile)
const RESOLVE_TIMEOUT_MS = 240_000
const START_TIMEOUT_MS = 30_000

export function createPeerResolver(): PeerResolver {
  const resolved = new Map<PeerName, Promise<string>>()
  const resolveOnce = async (name: PeerName): Promise<string> => {
    const peer = PEERS[name]
    const args = ['exec', '--yes', `--package=${peer.pkg}@${peer.version}`, '--', 'sh', '-c', `command -v ${peer.bin}`]
    const { stdout } = await run('npm', args, { cwd: tmpdir(), timeout: RESOLVE_TIMEOUT_MS, env: process.env })
    return realpathSync(stdout.trim())
  }
  return {
    resolve(name) {
      let pending = resolved.get(name)
      if (pending === undefined) {
        pending = resolveOnce(name)
        resolved.set(name, pending)
      }
      return pending
    }
  }
}

export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

// Ready once something accepts on 127.0.0.1:port, and nothing on that port is beyond loopback.
function probePort(port: number): () => Promise<string | undefined> {
  return () =>
    new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.destroy()
        try {
          assertLoopbackListener(port)
          resolve(`http://127.0.0.1:${port}`)
        } catch (err) {
          reject(err)
        }
      })
      socket.once('error', () => resolve(undefined))
    })
}

function buildPeerArgs(ctx: BenchContext, name: PeerName, entry: string, port: number): string[] {
  const backend = resolveStdioBackend(ctx)
  if (name === 'supergateway') {
    const stdio = `'${ctx.nodePath}' '${backend}'`
    return [
      '--require', join(ctx.benchDir, 'loopback.cjs'), entry, '--stdio', stdio, '--outputTransport', 'streamableHttp',
      '--stateful', '--port', String(port), '--streamableHttpPath', '/mcp', '--logLevel', 'none'
    ]
  }
  return [
    entry, '--host', '127.0.0.1', '--port', String(port), '--server', 'stream', '--streamEndpoint', '/mcp',
    '--no-eventStore', '--', ctx.nodePath, backend
  ]
}

export async function startPeer(ctx: BenchContext, name: PeerName): Promise<TargetSlot> {
  let entry: string
  try {
    entry = await ctx.peers.resolve(name)
  } catch (err) {
    return { name, reason: `npm exec failed: ${describeReason(err)}` }
  }
  try {
    const port = await findFreePort()
    const { handle } = await ctx.group.spawn({
      name,
      command: ctx.nodePath,
      args: buildPeerArgs(ctx, name, entry, port),
      env: createChildEnv({ HOME: process.env.HOME ?? tmpdir(), BENCH_REPORT_PORT: String(ctx.reports.port) }),
      cwd: ctx.repoRoot,
      probeReady: probePort(port),
      readyTimeoutMs: START_TIMEOUT_MS
    })
    const protocol = name === 'supergateway' ? 'legacy-session' : 'modern'
    const url = new URL(`http://127.0.0.1:${port}/mcp`)
    return { name, target: { name, url, handle, protocol, readyMs: elapsedMs(handle.startedNs) } }
  } catch (err) {
    return { name, reason: `failed to start: ${describeReason(err)}` }
  }
}
