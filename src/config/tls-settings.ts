// HTTPS and HTTP/2 settings as entries of the one config schema (schema.ts): the front's `tls` and
// `http2`, and an HTTP backend's `tls` and `http2` (README "HTTPS and HTTP/2"). Reading the files
// and building the TLS contexts is src/front/tls.ts (front) and src/upstream/http/backend-tls.ts.
import type { Settings } from './setting-types.ts'

export const TLS_VERSIONS = ['TLSv1.2', 'TLSv1.3'] as const

const FRONT_TLS = {
  certFile: { type: 'string', env: 'MCP_GATEWAY_TLS_CERT_FILE', doc: 'PEM certificate chain the listener serves (re-read on SIGHUP and when the file changes)' },
  keyFile: { type: 'string', env: 'MCP_GATEWAY_TLS_KEY_FILE', doc: 'PEM private key of that certificate (re-read with it)' },
  caFile: { type: 'string', optional: true, env: 'MCP_GATEWAY_TLS_CA_FILE', doc: 'PEM CA bundle client certificates are checked against (with requestClientCert)' },
  requestClientCert: {
    type: 'boolean', default: false,
    doc: 'require a client certificate signed by caFile (a mesh or a load balancer presenting one); the handshake fails without one',
  },
  minVersion: { type: 'string', default: 'TLSv1.2', oneOf: TLS_VERSIONS, doc: 'lowest TLS version accepted' },
} as const satisfies Settings

// Top-level entries of GATEWAY_SETTINGS.
export const FRONT_TLS_SETTINGS = {
  tls: { type: 'object', optional: true, settings: FRONT_TLS, doc: 'serve HTTPS (absent: plain HTTP)' },
  http2: {
    type: 'string', default: 'alpn', oneOf: ['alpn', 'h2c', 'off'], env: 'MCP_GATEWAY_HTTP2',
    doc: 'alpn: with tls, h2 and HTTP/1.1 offered by ALPN; h2c: cleartext h2 with prior knowledge only (no tls, no HTTP/1.1); off: HTTP/1.1 only',
  },
} as const satisfies Settings

const BACKEND_TLS = {
  caFile: { type: 'string', optional: true, doc: 'PEM CA bundle the backend\'s certificate is checked against (instead of the system\'s)' },
  serverName: { type: 'string', optional: true, doc: 'name the certificate must carry (SNI), when the URL\'s host is not it' },
  rejectUnauthorized: { type: 'boolean', default: true, doc: 'false accepts any certificate: for a test bench only, never in production' },
} as const satisfies Settings

// Last entries of an HTTP backend.
export const BACKEND_TLS_SETTINGS = {
  tls: { type: 'object', optional: true, settings: BACKEND_TLS, doc: 'how the backend\'s https:// certificate is checked' },
  http2: { type: 'boolean', default: true, doc: 'offer h2 by ALPN to an https:// backend (undici allowH2, its default); false: HTTP/1.1 only' },
} as const satisfies Settings

// Across settings: h2c has no TLS; a CA for client certificates is only used with requestClientCert.
export function checkTlsSettings(config: { tls?: { caFile?: string; requestClientCert: boolean }; http2: string }, report: (path: string, problem: string) => void): void {
  if (config.tls !== undefined && config.http2 === 'h2c') report('http2', '"h2c" is cleartext: use "alpn" with tls')
  if (config.tls?.requestClientCert && config.tls.caFile === undefined) report('tls.caFile', 'required with requestClientCert')
}
