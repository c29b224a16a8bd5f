// Entry point: load config → build → listen; SIGTERM/SIGINT → drain in phases. The only process.exit.
import { build, MCP_ENDPOINT, SERVER_INFO } from './app.ts'
import { startTracing } from './observability/tracing.ts'
import { ConfigError, loadConfig } from './config/loader.ts'
import { drain } from './lifecycle/drain.ts'
import { logStartup } from './lifecycle/startup.ts'

async function main(): Promise<void> {
  let config
  let app
  const load = () => loadConfig({ argv: process.argv.slice(2), env: process.env })
  try {
    config = load()
    // A certificate that cannot be served is a ConfigError too.
    app = await build(config, { loadConfig: load, tracing: await startTracing(process.env, SERVER_INFO.version, { toolLabelLimit: config.toolLabelLimit }) })
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    process.stderr.write(`mcp-gateway: ${err.message}\n`)
    process.exit(2)
  }
  // README "Reload without restart" (src/lifecycle/reload.ts) and the certificates (plugins/tls-reload.ts).
  const tls = config.tls !== undefined
  process.on('SIGHUP', () => {
    void app.reloader.request('SIGHUP')
    if (tls) app.reloadTls('SIGHUP')
  })
  await app.listen({ host: config.host, port: config.port })
  void logStartup(app, `${app.listeningOrigin}${MCP_ENDPOINT}`).catch((err: unknown) => app.log.error({ err }, 'start-up summary failed'))
  let closing = false
  const shutdown = (signal: string): void => {
    if (closing) return
    closing = true
    // In phases: readiness off, stop accepting, finish or cut in-flight requests (src/lifecycle/drain.ts).
    const drained = drain(app, { signal, drainDelayMs: config.drainDelayMs, shutdownTimeoutMs: config.shutdownTimeoutMs }).catch((err: unknown) => {
      app.log.error({ err }, 'error during shutdown')
      return 1
    })
    // Every log line written out, in order, before the exit.
    void drained.then(async (code) => {
      // The logger itself failed: said on stderr, and the exit goes on.
      await app.settleLogs().catch((err: unknown) => process.stderr.write(`mcp-gateway: could not write out the last log lines: ${String(err)}\n`))
      process.exit(code)
    })
  }
  process.once('SIGTERM', () => shutdown('SIGTERM'))
  process.once('SIGINT', () => shutdown('SIGINT'))
}

main().catch((err: unknown) => {
  process.stderr.write(`mcp-gateway: failed to start: ${err instanceof Error ? err.stack : String(err)}\n`)
  process.exit(1)
})
