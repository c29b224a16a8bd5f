// The production shape in docker-compose.yml (README "Running N replicas"): the compose file is
// valid (`docker-compose config`, no engine needed; skipped with how to install it when absent),
// references files that exist, wires three replicas behind nginx with Redis and Prometheus
// scraping each replica; deploy/nginx.conf passes `nginx -t` (as the replica tests run it: its
// upstream names pointed at loopback, since the compose network's names do not resolve here).
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { hasBinary } from '../helpers/redis-server.ts'
import { findFreePort } from '../helpers/ports.ts'
import { nginxConfig } from '../helpers/nginx.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const COMPOSE = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')
const NGINX_CONF = readFileSync(join(ROOT, 'deploy/nginx.conf'), 'utf8')
const PROMETHEUS = readFileSync(join(ROOT, 'deploy/prometheus.yml'), 'utf8')
const REPLICAS = ['gateway-1', 'gateway-2', 'gateway-3']

t.test('docker-compose config: valid, with the replicas, nginx, Redis and Prometheus', { skip: hasBinary('docker-compose') ? false : 'docker-compose not found: install it (Debian/Ubuntu: apt-get install -y docker-compose) to validate docker-compose.yml' }, async (t) => {
  const quiet = spawnSync('docker-compose', ['-f', 'docker-compose.yml', 'config', '-q'], { cwd: ROOT, encoding: 'utf8' })
  t.equal(quiet.status, 0, `valid: ${quiet.stderr}`)
  const services = spawnSync('docker-compose', ['-f', 'docker-compose.yml', 'config', '--services'], { cwd: ROOT, encoding: 'utf8' })
  t.same(services.stdout.trim().split('\n').sort(), ['everything', ...REPLICAS, 'nginx', 'prometheus', 'redis'].sort())
})

t.test('every file the compose file mounts exists', async (t) => {
  const mounted = [...COMPOSE.matchAll(/- \.\/([^:\s]+):/g)].map((m) => m[1])
  t.ok(mounted.includes('deploy/nginx.conf') && mounted.includes('deploy/prometheus.yml'), 'nginx and prometheus configs mounted')
  for (const path of mounted) t.ok(existsSync(join(ROOT, path)), `${path} exists`)
})

t.test('wiring: nginx balances the three replicas round robin, Prometheus scrapes each, replicas share Redis', async (t) => {
  for (const replica of REPLICAS) {
    t.match(NGINX_CONF, new RegExp(`server ${replica}:8080`), `nginx upstream has ${replica}`)
    t.match(PROMETHEUS, new RegExp(`'${replica}:8080'`), `prometheus scrapes ${replica}`)
  }
  t.notMatch(NGINX_CONF, /^\s*(ip_hash|hash|sticky|least_conn)\b/m, 'no affinity (round robin)')
  t.match(NGINX_CONF, /proxy_buffering off;/, 'SSE unbuffered')
  t.match(NGINX_CONF, /proxy_http_version 1\.1;[\s\S]*proxy_set_header Connection "";/, 'keep-alive to the replicas')
  t.match(COMPOSE, /MCP_GATEWAY_REDIS_URL: "\$\{MCP_GATEWAY_REDIS_URL:-redis:\/\/redis:6379\}"/)
  t.equal(COMPOSE.match(/healthcheck:/g)?.length, 5, 'healthchecks: replicas (one anchor), nginx, redis, prometheus, everything')
})

t.test('deploy/nginx.conf passes nginx -t', { skip: hasBinary('nginx') ? false : 'nginx not found: install it (Debian/Ubuntu: apt-get install -y nginx)' }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-gw-nginx-conf-'))
  writeFileSync(join(dir, 'nginx.conf'), nginxConfig(dir, await findFreePort(), ['127.0.0.1:9']))
  const checked = spawnSync('nginx', ['-t', '-p', dir, '-c', join(dir, 'nginx.conf'), '-g', `error_log ${dir}/error.log;`], { encoding: 'utf8' })
  t.equal(checked.status, 0, checked.stderr)
})
