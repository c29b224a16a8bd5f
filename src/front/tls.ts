// The front's HTTPS and HTTP/2 (README "HTTPS and HTTP/2"): the Fastify server options that
// config `tls` and `http2` ask for, and the certificate files read and checked, at start (a bad
// certificate is a ConfigError: exit 2) and at each reload (plugins/tls-reload.ts).
import { readFileSync } from 'node:fs'
import { createPrivateKey, X509Certificate } from 'node:crypto'
import { createSecureContext, type SecureContextOptions } from 'node:tls'
import type { GatewayConfig } from '../config/types.ts'
import { ConfigError } from '../config/loader.ts'

export type FrontTlsConfig = NonNullable<GatewayConfig['tls']>

// What a reload may change: the certificate, its key and the client CA.
export interface CertificateFiles {
  cert: string
  key: string
  ca?: string
}

function readPem(setting: string, path: string, problems: string[]): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (err) {
    problems.push(`tls.${setting}: file ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`)
    return ''
  }
}

// The leaf must parse, match its key and be valid now; the whole set must make a TLS context.
function checkCertificate(files: CertificateFiles, tls: FrontTlsConfig, problems: string[]): void {
  try {
    const leaf = new X509Certificate(files.cert)
    if (!leaf.checkPrivateKey(createPrivateKey(files.key))) problems.push(`tls.keyFile: ${tls.keyFile} is not the key of ${tls.certFile}`)
    const now = Date.now()
    if (Date.parse(leaf.validTo) < now) problems.push(`tls.certFile: ${tls.certFile} expired on ${leaf.validTo}`)
    if (Date.parse(leaf.validFrom) > now) problems.push(`tls.certFile: ${tls.certFile} is not valid before ${leaf.validFrom}`)
    if (problems.length === 0) createSecureContext(secureContextOf(files, tls))
  } catch (err) {
    problems.push(`tls: ${tls.certFile} / ${tls.keyFile}: ${(err as Error).message}`)
  }
}

// The files as they are now, checked; throws a ConfigError listing every problem.
export function readCertificateFiles(tls: FrontTlsConfig): CertificateFiles {
  const problems: string[] = []
  const files: CertificateFiles = { cert: readPem('certFile', tls.certFile, problems), key: readPem('keyFile', tls.keyFile, problems) }
  if (tls.caFile !== undefined) files.ca = readPem('caFile', tls.caFile, problems)
  if (problems.length === 0) checkCertificate(files, tls, problems)
  if (problems.length > 0) throw new ConfigError(problems)
  return files
}

export function secureContextOf(files: CertificateFiles, tls: FrontTlsConfig): SecureContextOptions {
  return { ...files, minVersion: tls.minVersion as SecureContextOptions['minVersion'] }
}

export interface FrontServerOptions {
  http2?: true
  // An HTTP/2 server has no closeIdleConnections: close() sends its sessions GOAWAY and waits for
  // their open streams instead (Node 24); HTTP/1.1 keep-alive connections on it close when idle.
  forceCloseConnections?: false
  https?: SecureContextOptions & { allowHTTP1?: boolean; requestCert?: boolean; rejectUnauthorized?: boolean } & Http1Options
}

// node:http options an HTTPS/1.1 listener takes as a plain one does.
export interface Http1Options {
  readonly joinDuplicateHeaders?: boolean
  readonly requireHostHeader?: boolean
}

// Fastify's own HTTPS and HTTP/2: `http2: true` with `https` is h2 and HTTP/1.1 by ALPN;
// `http2: true` alone is cleartext h2 with prior knowledge (h2c); `https` alone is HTTPS/1.1.
export function frontServerOptions(config: Pick<GatewayConfig, 'tls' | 'http2'>, http1: Http1Options = {}): FrontServerOptions {
  const h2 = config.http2 === 'h2c' || (config.http2 === 'alpn' && config.tls !== undefined) ? { http2: true as const, forceCloseConnections: false as const } : {}
  if (config.tls === undefined) return h2
  const files = readCertificateFiles(config.tls)
  // Client certificates (a mesh, a load balancer presenting one): required and checked against caFile.
  const clientCert = config.tls.requestClientCert ? { requestCert: true, rejectUnauthorized: true } : {}
  const versions = 'http2' in h2 ? { allowHTTP1: true } : http1
  return { ...h2, https: { ...secureContextOf(files, config.tls), ...clientCert, ...versions } }
}
