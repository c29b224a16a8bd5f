// Reload without restart (README "Reload without restart"): SIGHUP or POST /admin/reload re-reads
// the config file. A config that does not validate is refused, every error listed, and the running
// one kept. Backends take effect at once (backend-swap.ts), and so does logLevel; a setting that
// needs a restart (host, port, stateSecret …) is named as such, never silently ignored. Requests
// coalesce: one reload runs at a time, and at most one more waits, shared by every request that
// comes meanwhile (a SIGHUP storm costs two reloads). Other parts hook in with `addHook` (a
// certificate re-read, say): each hook gets the new config after the backends are swapped.
import type { GatewayConfig } from '../config/types.ts'
import { ConfigError } from '../config/loader.ts'
import type { Logger } from '../observability/logger.ts'
import type { ReloadMetrics } from '../observability/reload-metrics.ts'
import type { SwapSummary } from './backend-swap.ts'

export const RELOAD_OUTCOME = { applied: 'applied', unchanged: 'unchanged', refused: 'refused', failed: 'failed' } as const
export type ReloadOutcome = (typeof RELOAD_OUTCOME)[keyof typeof RELOAD_OUTCOME]

export interface ReloadResult extends SwapSummary {
  outcome: ReloadOutcome
  // The new config's errors (refused), or what went wrong applying it (failed).
  errors: string[]
  // Top-level settings that differ from the running ones and take effect only after a restart.
  restartNeeded: string[]
}

export type ReloadHook = (config: GatewayConfig) => void | Promise<void>

// The settings a reload applies; any other top-level setting that changed needs a restart.
const RELOADABLE: ReadonlySet<string> = new Set(['backends', 'logLevel'])

export interface ReloaderDeps {
  // The config as the process would load it now (file and environment); throws ConfigError.
  load(): GatewayConfig
  running: GatewayConfig
  swap(configs: GatewayConfig['backends']): Promise<SwapSummary>
  setLogLevel(level: string): void
  logger: Logger
  metrics: ReloadMetrics
}

const NO_CHANGE: SwapSummary = { added: [], removed: [], changed: [] }

export function restartNeededFor(running: GatewayConfig, next: GatewayConfig): string[] {
  const keys = new Set([...Object.keys(running), ...Object.keys(next)])
  return [...keys].filter((key) => !RELOADABLE.has(key) && JSON.stringify(running[key as keyof GatewayConfig]) !== JSON.stringify(next[key as keyof GatewayConfig]))
}

export class Reloader {
  readonly #deps: ReloaderDeps
  readonly #hooks: ReloadHook[] = []
  #running: GatewayConfig
  #current: Promise<ReloadResult> | undefined
  #queued: Promise<ReloadResult> | undefined

  constructor(deps: ReloaderDeps) {
    this.#deps = deps
    this.#running = deps.running
  }

  addHook(hook: ReloadHook): void {
    this.#hooks.push(hook)
  }

  // `source` names who asked (SIGHUP, admin), for the log line.
  request(source: string): Promise<ReloadResult> {
    if (this.#queued) return this.#queued
    if (!this.#current) return this.#start(source)
    const queued = this.#current.then(() => {
      this.#queued = undefined
      return this.#start(source)
    })
    this.#queued = queued
    return queued
  }

  #start(source: string): Promise<ReloadResult> {
    const run = this.#run(source).finally(() => {
      if (this.#current === run) this.#current = undefined
    })
    this.#current = run
    return run
  }

  async #run(source: string): Promise<ReloadResult> {
    const result = await this.#attempt()
    this.#deps.metrics.counted(result.outcome)
    const { logger } = this.#deps
    const line = { source, ...result }
    if (result.outcome === RELOAD_OUTCOME.refused || result.outcome === RELOAD_OUTCOME.failed) logger.error(line, 'config reload refused; the running config is kept')
    else if (result.restartNeeded.length > 0) logger.warn(line, `config reloaded; restart needed for: ${result.restartNeeded.join(', ')}`)
    else logger.info(line, 'config reloaded')
    return result
  }

  async #attempt(): Promise<ReloadResult> {
    let next: GatewayConfig
    try {
      next = this.#deps.load()
    } catch (err) {
      const refused = err instanceof ConfigError
      const errors = refused ? err.errors : [err instanceof Error ? err.message : String(err)]
      return { outcome: refused ? RELOAD_OUTCOME.refused : RELOAD_OUTCOME.failed, errors, restartNeeded: [], ...NO_CHANGE }
    }
    const restartNeeded = restartNeededFor(this.#running, next)
    try {
      const swapped = await this.#deps.swap(next.backends)
      if (next.logLevel !== this.#running.logLevel) this.#deps.setLogLevel(next.logLevel)
      for (const hook of this.#hooks) await hook(next)
      const changed = swapped.added.length + swapped.removed.length + swapped.changed.length > 0 || next.logLevel !== this.#running.logLevel
      this.#running = { ...this.#running, backends: next.backends, logLevel: next.logLevel }
      return { outcome: changed ? RELOAD_OUTCOME.applied : RELOAD_OUTCOME.unchanged, errors: [], restartNeeded, ...swapped }
    } catch (err) {
      this.#deps.logger.error({ err }, 'applying the reloaded config failed')
      return { outcome: RELOAD_OUTCOME.failed, errors: [err instanceof Error ? err.message : String(err)], restartNeeded, ...NO_CHANGE }
    }
  }
}
