// How the gateway connects to an HTTP backend (README "HTTPS and HTTP/2"): for an https:// URL,
// the certificate checked against the system's CAs or the backend's own `tls.caFile`, under the
// URL's host name or `tls.serverName`, never unchecked unless `tls.rejectUnauthorized` is false;
// and h2 offered by ALPN unless `http2` is false (undici allowH2, on by default since undici 8;
// HTTP/1.1 when the backend declines).
// The same options serve every undici dispatcher the backend uses (calls, listens, legacy GET).
import { readFileSync } from 'node:fs'
import type { HttpBackendConfig } from '../../config/types.ts'
import { ConfigError } from '../../config/loader.ts'

export interface BackendConnectOptions {
  connect?: { ca?: string; servername?: string; rejectUnauthorized: boolean }
  allowH2?: boolean
}

function readCa(config: HttpBackendConfig, caFile: string): string {
  try {
    return readFileSync(caFile, 'utf8')
  } catch (err) {
    throw new ConfigError([`backends.${config.name}.tls.caFile: file ${caFile} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`])
  }
}

// Read once, when the backend is built (a CA that cannot be read is a ConfigError: exit 2).
export function backendConnectOptions(config: HttpBackendConfig): BackendConnectOptions {
  if (!config.url.startsWith('https:')) return {}
  const tls = config.tls ?? { rejectUnauthorized: true }
  const connect = {
    rejectUnauthorized: tls.rejectUnauthorized,
    ...(tls.caFile === undefined ? {} : { ca: readCa(config, tls.caFile) }),
    ...(tls.serverName === undefined ? {} : { servername: tls.serverName }),
  }
  return { connect, allowH2: config.http2 }
}
