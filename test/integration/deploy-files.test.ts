// deploy/ (README "Operations"): the Prometheus config and alert rules pass promtool (config,
// rules, and the rules' own unit tests), the Grafana dashboard is well formed, and every metric
// the rules and the dashboard use is one a running gateway exposes.
import t from 'tap'
import { execFile, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { startFixture } from '../helpers/backend-process.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { createRawClient } from '../helpers/mcp-client.ts'
import { seriesNames } from '../helpers/metric-names.ts'

const DEPLOY = fileURLToPath(new URL('../../deploy/', import.meta.url))
const run = promisify(execFile)
const PROMTOOL_MISSING = spawnSync('promtool', ['--version']).error !== undefined
const NO_PROMTOOL = 'promtool not installed: apt-get install prometheus (Debian/Ubuntu), or the Prometheus release tarball'

interface Dashboard {
  uid: string
  panels: Array<{ id: number; type: string; title: string; targets?: Array<{ expr: string; refId: string }> }>
  templating: { list: Array<{ name: string }> }
}

const dashboard = JSON.parse(readFileSync(`${DEPLOY}grafana-dashboard.json`, 'utf8')) as Dashboard
const rules = readFileSync(`${DEPLOY}alerts.yml`, 'utf8')

for (const [what, args] of [
  ['prometheus.yml → promtool check config', ['check', 'config', 'prometheus.yml']],
  ['alerts.yml → promtool check rules', ['check', 'rules', 'alerts.yml']],
  ['alerts.test.yml → promtool test rules (each alert fires on its input)', ['test', 'rules', 'alerts.test.yml']],
] as const) {
  t.test(what, { skip: PROMTOOL_MISSING && NO_PROMTOOL }, async (t) => {
    const { stdout } = await run('promtool', [...args], { cwd: DEPLOY })
    t.match(stdout, /SUCCESS/)
  })
}

t.test('grafana-dashboard.json → unique panel ids, a query per panel, on the datasource variable', async (t) => {
  const ids = dashboard.panels.map((p) => p.id)
  t.equal(new Set(ids).size, ids.length, 'panel ids unique')
  for (const panel of dashboard.panels.filter((p) => p.type !== 'row')) {
    t.ok(panel.targets !== undefined && panel.targets.length > 0 && panel.targets.every((q) => /mcp_gateway_/.test(q.expr)), `${panel.title}: queries a gateway metric`)
  }
  t.same(dashboard.templating.list.map((v) => v.name), ['datasource', 'job', 'instance'])
  t.notMatch(JSON.stringify(dashboard), /\$\{DS_[A-Z_]+\}/, 'no import-time placeholder left')
})

t.test('every metric in alerts.yml and grafana-dashboard.json → exposed by a running gateway', async (t) => {
  const alpha = await startFixture(t, fileURLToPath(new URL('../fixtures/sdk-http-backend.ts', import.meta.url)), ['--name', 'alpha'])
  const gateway = await startGateway(t, { backends: [{ name: 'a', transport: 'http', url: alpha.url, namespace: 'a' }] })
  const scrape = (await createRawClient(t, gateway.url).send('GET', '/metrics')).text
  const exposed = seriesNames(scrape)
  const used = (text: string): string[] => [...new Set(text.match(/\bmcp_gateway_[a-z0-9_]+/g) ?? [])]
  const fromRules = used(rules)
  const fromDashboard = used(dashboard.panels.flatMap((p) => p.targets ?? []).map((q) => q.expr).join('\n'))
  t.ok(fromRules.length >= 5 && fromDashboard.length >= 15, `names found (${fromRules.length} in rules, ${fromDashboard.length} in the dashboard)`)
  const linuxOnly = process.platform === 'linux' ? [] : ['mcp_gateway_process_resident_memory_bytes']
  t.same(fromRules.filter((name) => !exposed.has(name)), [], 'alerts.yml uses only exposed series')
  t.same(fromDashboard.filter((name) => !exposed.has(name) && !linuxOnly.includes(name)), [], 'the dashboard uses only exposed series')
})
