// The metric names the README documents (section "Operations" → "Metrics") and the ones a running
// gateway exposes, for the tests that keep docs, deploy/ and /metrics in step.
import { readFileSync } from 'node:fs'

const README = new URL('../../README.md', import.meta.url)

export interface DocumentedMetrics {
  all: Set<string>
  // Rows marked "Linux only" (prom-client reads them from /proc).
  linuxOnly: Set<string>
  // Rows marked "only with `redisUrl`": registered only when the replicas share a Redis.
  redisOnly: Set<string>
}

export function documentedMetrics(): DocumentedMetrics {
  const text = readFileSync(README, 'utf8')
  const start = text.indexOf('\n### Metrics\n')
  if (start < 0) throw new Error('README has no "### Metrics" section')
  const rest = text.slice(start + 1)
  const end = rest.slice(1).search(/\n##+ /)
  const section = end < 0 ? rest : rest.slice(0, end + 1)
  const all = new Set<string>()
  const linuxOnly = new Set<string>()
  const redisOnly = new Set<string>()
  for (const match of section.matchAll(/^\| `(mcp_gateway_[a-z0-9_]+)` \|[^\n]*$/gm)) {
    all.add(match[1])
    if (match[0].includes('Linux only')) linuxOnly.add(match[1])
    if (match[0].includes('only with `redisUrl`')) redisOnly.add(match[1])
  }
  return { all, linuxOnly, redisOnly }
}

// Metric family names from the `# TYPE` lines of a scrape.
export function exposedMetrics(scrape: string): Set<string> {
  return new Set([...scrape.matchAll(/^# TYPE (\S+) \S+$/gm)].map((m) => m[1]))
}

// Every series name a scrape can have for these families (histograms: _bucket, _sum, _count).
export function seriesNames(scrape: string): Set<string> {
  const names = new Set<string>()
  for (const match of scrape.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(match[1])
    if (match[2] === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(match[1] + suffix)
  }
  return names
}
