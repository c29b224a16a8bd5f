// A real nginx (Debian package nginx) in front of several gateway processes, with the production
// config (deploy/nginx.conf): round robin, no affinity, HTTP/1.1 keep-alive to the upstreams, no
// buffering (SSE). Its config, pid, logs and temp files live in a temp dir; stopped in teardown. Each response
// names the replica that served it (X-Replica: the upstream address), so tests can prove where
// requests landed. One worker process, so round robin is strict across the test's requests.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { connect } from 'node:net'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TeardownHost } from './backend-process.ts'
import { findFreePort } from './ports.ts'

export const NGINX_MISSING = 'nginx not found: install it (Debian/Ubuntu: apt-get install -y nginx) to run the replica tests'

export interface Nginx {
  url: string
  errorLog: string
}

const DEPLOYED = fileURLToPath(new URL('../../deploy/nginx.conf', import.meta.url))

// deploy/nginx.conf itself, pointed at these upstreams, this port and this temp dir; one worker
// (strict round robin across the test's requests) and the X-Replica header added.
export function nginxConfig(dir: string, port: number, upstreams: readonly string[]): string {
  for (const name of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
    mkdirSync(join(dir, name), { recursive: true })
    chmodSync(join(dir, name), 0o777) // workers may run as another user
  }
  const servers = upstreams.map((u) => `    server ${u} max_fails=1 fail_timeout=2s;`).join('\n')
  return readFileSync(DEPLOYED, 'utf8')
    .replace(/^worker_processes .*$/m, 'worker_processes 1;')
    .replaceAll('/tmp/', `${dir}/`)
    .replace('/dev/stderr', join(dir, 'error.log'))
    .replace(/(    server gateway-\d:8080 .*\n)+/, `${servers}\n`)
    .replace('listen 8080;', `listen 127.0.0.1:${port};`)
    .replace('proxy_pass http://mcp_gateways;', 'proxy_pass http://mcp_gateways;\n      add_header X-Replica $upstream_addr always;')
}

export async function startNginx(t: TeardownHost, upstreams: readonly string[]): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-gw-nginx-'))
  chmodSync(dir, 0o755)
  const port = await findFreePort()
  const conf = join(dir, 'nginx.conf')
  writeFileSync(conf, nginxConfig(dir, port, upstreams))
  const child = spawn('nginx', ['-p', dir, '-c', conf, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'inherit'] })
  const exited = once(child, 'exit')
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGQUIT')
    await exited
  })
  await waitForPort(port, exited)
  return { url: `http://127.0.0.1:${port}/mcp`, errorLog: join(dir, 'error.log') }
}

// nginx prints nothing when it is ready: its port accepting is the event.
async function waitForPort(port: number, exited: Promise<unknown>): Promise<void> {
  let gone = false
  void exited.then(() => { gone = true })
  for (;;) {
    if (gone) throw new Error('nginx exited at start (see its error output)')
    const socket = connect(port, '127.0.0.1')
    const ok = await new Promise<boolean>((resolve) => {
      socket.once('connect', () => resolve(true))
      socket.once('error', () => resolve(false))
    })
    socket.destroy()
    if (ok) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
