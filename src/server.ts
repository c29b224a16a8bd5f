// Entry point: load config → build → listen; SIGTERM/SIGINT → graceful drain. The only process.exit.
import { build, SERVER_INFO } from './app.ts'
import { startTracing } from './observability/tracing.ts'
import { ConfigError, loadConfig } from './config/loader.ts'

async function main(): Promise<void> {
  let config
  const load = () => loadConfig({ argv: process.argv.slice(2), env: process.env })
  try {
    config = load()
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    process.stderr.write(`mcp-gateway: ${err.message}\n`)
    process.exit(2)
  }
  const app = await build(config, { loadConfig: load, tracing: await startTracing(process.env, SERVER_INFO.version) })
  // README "Reload without restart" (src/lifecycle/reload.ts; other reloadable parts hook in there).
  process.on('SIGHUP', () => void app.reloader.request('SIGHUP'))
  await app.listen({ host: config.host, port: config.port })
  let closing = false
  const shutdown = (signal: string): void => {
    if (closing) return
    closing = true
    app.log.info({ signal }, 'shutting down')
    const exit = (code: number): never => {
      app.flushLogs()
      process.exit(code)
    }
    const deadline = setTimeout(() => {
      app.log.error({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown deadline passed; exiting')
      exit(1)
    }, config.shutdownTimeoutMs)
    deadline.unref()
    // Keep-alive connections that go idle once their in-flight request finishes are closed too,
    // or a client holding one open would stall the drain until the deadline.
    const idleCloser = setInterval(() => app.server.closeIdleConnections(), 100)
    idleCloser.unref()
    app.close().then(() => exit(0), (err: unknown) => {
      app.log.error({ err }, 'error during shutdown')
      exit(1)
    })
  }
  process.once('SIGTERM', () => shutdown('SIGTERM'))
  process.once('SIGINT', () => shutdown('SIGINT'))
}

main().catch((err: unknown) => {
  process.stderr.write(`mcp-gateway: failed to start: ${err instanceof Error ? err.stack : String(err)}\n`)
  process.exit(1)
})
