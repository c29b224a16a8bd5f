// Certificate rotation without dropping a connection: the files of config `tls` are re-read on
// `app.reloadTls()` (server.ts calls it on SIGHUP) and when they change (their directories watched,
// debounced, so a renamed-in file or a Kubernetes secret's symlink swap counts), and handed to the
// listener with setSecureContext: new handshakes get the new certificate, open connections keep
// theirs. A set that does not pass the start checks (src/front/tls.ts) is refused and logged; the
// current one stays.
import { watch, type FSWatcher } from 'node:fs'
import { dirname } from 'node:path'
import type { Server as TlsServer } from 'node:tls'
import fp from 'fastify-plugin'
import { ConfigError } from '../src/config/loader.ts'
import { readCertificateFiles, secureContextOf, type CertificateFiles, type FrontTlsConfig } from '../src/front/tls.ts'

// Writers touch a file several times (truncate, write, rename; a certificate then its key): one
// reload once they are done.
export const TLS_RELOAD_DEBOUNCE_MS = 250

export interface TlsReloadOptions {
  tls: FrontTlsConfig
}

declare module 'fastify' {
  interface FastifyInstance {
    // Re-reads the certificate files; false when the new set was refused (or nothing changed).
    reloadTls(reason: string): boolean
  }
}

const FILE_CHANGE = 'file change'

// A directory that cannot be watched (permissions, no inotify left) leaves SIGHUP: logged, not fatal.
function watchDirectory(dir: string, onChange: () => void, log: { warn(obj: object, msg: string): void }): FSWatcher[] {
  try {
    const watcher = watch(dir, { persistent: false }, onChange)
    watcher.on('error', (err) => log.warn({ err, dir }, 'tls file watch failed; SIGHUP still reloads'))
    return [watcher]
  } catch (err) {
    log.warn({ err, dir }, 'tls files cannot be watched; SIGHUP reloads them')
    return []
  }
}

function sameFiles(a: CertificateFiles, b: CertificateFiles): boolean {
  return a.cert === b.cert && a.key === b.key && a.ca === b.ca
}

export default fp<TlsReloadOptions>(async function tlsReloadPlugin(app, { tls }) {
  let current = readCertificateFiles(tls)
  const reload = (reason: string): boolean => {
    let next: CertificateFiles
    try {
      next = readCertificateFiles(tls)
    } catch (err) {
      const problems = err instanceof ConfigError ? err.errors : [String(err)]
      app.log.error({ reason, problems }, 'tls reload refused; the current certificate stays')
      return false
    }
    if (sameFiles(current, next)) {
      // An operator's SIGHUP gets an answer; a change elsewhere in a watched directory does not.
      if (reason !== FILE_CHANGE) app.log.info({ reason, certFile: tls.certFile }, 'tls certificate unchanged')
      return false
    }
    ;(app.server as unknown as TlsServer).setSecureContext(secureContextOf(next, tls))
    current = next
    app.log.info({ reason, certFile: tls.certFile }, 'tls certificate reloaded')
    return true
  }
  app.decorate('reloadTls', reload)
  let timer: NodeJS.Timeout | undefined
  const onChange = (): void => {
    clearTimeout(timer)
    timer = setTimeout(() => reload(FILE_CHANGE), TLS_RELOAD_DEBOUNCE_MS).unref()
  }
  const files = [tls.certFile, tls.keyFile, ...(tls.caFile === undefined ? [] : [tls.caFile])]
  const watchers = [...new Set(files.map((file) => dirname(file)))].flatMap((dir) => watchDirectory(dir, onChange, app.log))
  app.addHook('onClose', async () => {
    clearTimeout(timer)
    for (const watcher of watchers) watcher.close()
  })
}, { name: 'tls-reload' })
