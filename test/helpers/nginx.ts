// A real nginx (Debian package nginx) in front of several gateway processes, as in production
// (deploy/nginx.conf): round robin, no affinity, HTTP/1.1 keep-alive to the upstreams, no buffering
// (SSE). Its config, pid, logs and temp files live in a temp dir; stopped in teardown. Each response
// names the replica that served it (X-Replica: the upstream address), so tests can prove where
// requests landed. One worker process, so round robin is strict across the test's requests.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { connect } from 'node:net'
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TeardownHost } from './backend-process.ts'
import { findFreePort } from './ports.ts'

export const NGINX_MISSING = 'nginx not found: install it (Debian/Ubuntu: apt-get install -y nginx) to run the replica tests'

export interface Nginx {
  url: string
  errorLog: string
}

export function nginxConfig(dir: string, port: number, upstreams: readonly string[]): string {
  const temp = (name: string): string => {
    const path = join(dir, name)
    mkdirSync(path, { recursive: true })
    chmodSync(path, 0o777) // workers may run as another user
    return path
  }
  return `worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${temp('body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
  upstream gateways {
${upstreams.map((u) => `    server ${u} max_fails=1 fail_timeout=2s;`).join('\n')}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://gateways;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 1h;
      add_header X-Replica $upstream_addr always;
    }
  }
}
`
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
