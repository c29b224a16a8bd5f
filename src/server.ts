// Entry point: load config → build → listen; SIGTERM/SIGINT → graceful drain. The only process.exit.
import { build } from './app.ts'
import { ConfigError, loadConfig } from './config/loader.ts'

async function main(): Promise<void> {
  let config
  let app
  try {
    config = loadConfig({ argv: process.argv.slice(2), env: process.env })
    app = await build(config) // a certificate that cannot be served is a ConfigError too
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    process.stderr.write(`mcp-gateway: ${err.message}\n`)
    process.exit(2)
  }
  await app.listen({ host: config.host, port: config.port })
  if (config.tls) process.on('SIGHUP', () => app.reloadTls('SIGHUP')) // plugins/tls-reload.ts
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
    // (An HTTP/2 server has no such method: its sessions get GOAWAY from close() itself.)
    const idleCloser = setInterval(() => app.server.closeIdleConnections?.(), 100)
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
