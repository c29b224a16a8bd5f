// Throw-away certificates for the HTTPS tests, made with `openssl` (Debian package openssl): a CA,
// then server certificates for 127.0.0.1 and localhost and client certificates signed by it. Each
// CA lives in its own temporary directory, removed at teardown. Tests skip when openssl is absent.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startFixture, type FixtureProcess, type TeardownHost } from './backend-process.ts'

export const OPENSSL_MISSING = 'openssl not found: install it (apt-get install -y openssl) to run the HTTPS tests'

export function hasOpenssl(): boolean {
  return spawnSync('openssl', ['version']).status === 0
}

export interface Issued {
  certFile: string
  keyFile: string
  cert: string
  key: string
}

export interface TestCa extends Issued {
  dir: string
  // A server certificate (SAN 127.0.0.1, localhost) or a client certificate, signed by this CA.
  issue(name: string, kind?: 'server' | 'client'): Issued
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] })
}

function issued(dir: string, name: string): Issued {
  const certFile = join(dir, `${name}.pem`)
  const keyFile = join(dir, `${name}.key`)
  return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') }
}

export function createTestCa(t: TeardownHost, subject = 'mcp-gateway test CA'): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-gw-pki-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  openssl(['req', '-x509', ...EC_KEY, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', `/CN=${subject}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], dir)
  const issue = (name: string, kind: 'server' | 'client' = 'server'): Issued => {
    const ext = kind === 'server' ? 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' : 'extendedKeyUsage=clientAuth\n'
    writeFileSync(join(dir, `${name}.ext`), ext)
    openssl(['req', ...EC_KEY, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`], dir)
    openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`], dir)
    return issued(dir, name)
  }
  return { dir, ...issued(dir, 'ca'), issue }
}

// The common start of an HTTPS test file: skips it (exits) without openssl, else a test CA, a
// server certificate for the gateway, and one SDK fixture backend "alpha" as backend `a`.
export async function startTlsBench(t: TeardownHost & { plan(n: number, comment: string): void }): Promise<{
  ca: TestCa; server: Issued; tls: { certFile: string; keyFile: string }; alpha: FixtureProcess; backends: Array<Record<string, string>>
}> {
  if (!hasOpenssl()) {
    t.plan(0, OPENSSL_MISSING)
    process.exit(0)
  }
  const ca = createTestCa(t)
  const server = ca.issue('gateway')
  const alpha = await startFixture(t, fileURLToPath(new URL('../fixtures/sdk-http-backend.ts', import.meta.url)), ['--name', 'alpha'])
  const backends = [{ name: 'a', transport: 'http', url: alpha.url, namespace: 'a' }]
  return { ca, server, tls: { certFile: server.certFile, keyFile: server.keyFile }, alpha, backends }
}
