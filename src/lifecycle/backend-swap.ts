// Backends added, removed or changed by a config reload, taking effect without a restart. A
// backend whose config did not change keeps its entry (its connections, listens, cache and fair
// queue). New ones are probed before they are swapped in, so the first request after the reload
// sees their tools. A removed (or replaced) one stops taking calls at once, and is closed once its
// calls in flight have finished, or at the latest after its own timeout. Clients that asked are
// told the lists changed (their listen and legacy GET streams stay open).
import { isDeepStrictEqual } from 'node:util'
import type { BackendConfig } from '../config/types.ts'
import type { Logger } from '../observability/logger.ts'
import { isJsonObject } from '../protocol/jsonrpc.ts'
import { LIST_CHANGES } from '../protocol/subscriptions.ts'
import type { BackendEntry, BackendSet } from '../routing/backend-set.ts'
import type { Catalog } from '../routing/catalog.ts'
import type { ListenHub } from '../routing/listen-hub.ts'
import type { BackendSchedulers, CallScheduler } from '../routing/call-scheduler.ts'

export interface SwapDeps {
  backends: BackendSet
  catalog: Catalog
  schedulers: BackendSchedulers
  hub: ListenHub
  logger: Logger
  createEntry(config: BackendConfig): BackendEntry
  // Removed backends still draining (closed with the app if it closes first).
  draining: Set<BackendEntry>
}

export interface SwapSummary {
  added: string[]
  removed: string[]
  changed: string[]
}

// The longest a removed backend's calls may still take: a queued call's wait, then its own timeout.
function drainLimitMs(entry: BackendEntry, queueTimeoutMs: number): number {
  return queueTimeoutMs + entry.config.timeoutMs
}

export async function swapBackends(deps: SwapDeps, configs: readonly BackendConfig[], queueTimeoutMs: number): Promise<SwapSummary> {
  const old = deps.backends.entries
  const byName = new Map(old.map((entry) => [entry.config.name, entry]))
  const next = configs.map((config) => {
    const current = byName.get(config.name)
    return current && isDeepStrictEqual(current.config, config) ? current : deps.createEntry(config)
  })
  const kept = new Set(next)
  const added = next.filter((entry) => !old.includes(entry))
  const removed = old.filter((entry) => !kept.has(entry))
  await Promise.all(added.map((entry) => entry.backend.start()))
  deps.backends.replace(next)
  const released = deps.schedulers.sync(next)
  for (const entry of [...added, ...removed]) deps.catalog.invalidate(entry.backend.name)
  deps.hub.forget(removed)
  deps.hub.start()
  deps.hub.announce(changesOf([...added, ...removed]))
  for (const entry of removed) drain(deps, entry, released.find((s) => s.backend === entry.config.name), drainLimitMs(entry, queueTimeoutMs))
  return summarize(added, removed)
}

function summarize(added: BackendEntry[], removed: BackendEntry[]): SwapSummary {
  const names = (entries: BackendEntry[]): string[] => entries.map((e) => e.config.name)
  const before = new Set(names(removed))
  const after = new Set(names(added))
  return {
    added: names(added).filter((n) => !before.has(n)),
    removed: names(removed).filter((n) => !after.has(n)),
    changed: names(added).filter((n) => before.has(n)),
  }
}

// The list_changed notifications the swap calls for: a kind some added or removed backend offers
// (or, not probed successfully, might offer).
function changesOf(entries: readonly BackendEntry[]): string[] {
  return LIST_CHANGES.filter((change) => entries.some((entry) => {
    const capabilities = entry.backend.capabilities()
    return !entry.backend.status().up || isJsonObject(capabilities[change.capability])
  })).map((change) => change.method)
}

function drain(deps: SwapDeps, entry: BackendEntry, scheduler: CallScheduler | undefined, limitMs: number): void {
  deps.draining.add(entry)
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), limitMs)).unref())
  const idle = (scheduler?.idle() ?? Promise.resolve()).then(() => 'idle' as const)
  void Promise.race([idle, deadline]).then(async (how) => {
    clearTimeout(timer)
    if (!deps.draining.delete(entry)) return // the app closed it already
    deps.logger.info({ backend: entry.config.name, drained: how }, 'removed backend closed')
    await entry.backend.close()
  }).catch((err: unknown) => deps.logger.error({ err, backend: entry.config.name }, 'closing a removed backend failed'))
}
