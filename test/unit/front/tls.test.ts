// frontServerOptions: config `tls` and `http2` → Fastify's server options; the certificate checks.
import t from 'tap'
import { frontServerOptions, readCertificateFiles } from '../../../src/front/tls.ts'
import { createTestCa, hasOpenssl, OPENSSL_MISSING } from '../../helpers/test-pki.ts'

if (!hasOpenssl()) {
  t.plan(0, OPENSSL_MISSING)
  process.exit(0)
}

const ca = createTestCa(t)
const cert = ca.issue('unit')
const TLS = { certFile: cert.certFile, keyFile: cert.keyFile, requestClientCert: false, minVersion: 'TLSv1.2' }

t.test('tls × http2 → the server options', async (t) => {
  const cases: Array<[string, Parameters<typeof frontServerOptions>[0], Record<string, unknown>]> = [
    ['no tls, alpn → plain HTTP/1.1', { http2: 'alpn' }, {}],
    ['no tls, off → plain HTTP/1.1', { http2: 'off' }, {}],
    ['no tls, h2c → cleartext h2', { http2: 'h2c' }, { http2: true, forceCloseConnections: false }],
    ['tls, off → HTTPS/1.1', { tls: TLS, http2: 'off' }, { https: { cert: cert.cert, key: cert.key, minVersion: 'TLSv1.2' } }],
    ['tls, alpn → h2 and HTTP/1.1', { tls: TLS, http2: 'alpn' }, { http2: true, forceCloseConnections: false, https: { allowHTTP1: true, minVersion: 'TLSv1.2' } }],
    ['tls with client certificates → required and checked', { tls: { ...TLS, caFile: ca.certFile, requestClientCert: true }, http2: 'off' },
      { https: { ca: ca.cert, requestCert: true, rejectUnauthorized: true } }],
  ]
  for (const [name, config, expected] of cases) {
    const options = frontServerOptions(config)
    if (Object.keys(expected).length === 0) t.same(options, {}, name)
    else t.match(options, expected, name)
    if (config.http2 === 'off') t.notOk('http2' in options, `${name}: no http2`)
  }
})

t.test('readCertificateFiles → every problem listed in one ConfigError', async (t) => {
  const other = ca.issue('unit-other')
  t.throws(() => readCertificateFiles({ ...TLS, keyFile: other.keyFile }), { name: 'ConfigError', errors: [/tls\.keyFile: .* is not the key of /] })
  t.throws(() => readCertificateFiles({ ...TLS, certFile: '/nonexistent/c.pem', caFile: '/nonexistent/ca.pem' }), {
    errors: [/tls\.certFile: file \/nonexistent\/c\.pem cannot be read \(ENOENT\)/, /tls\.caFile: file \/nonexistent\/ca\.pem cannot be read/],
  })
  t.same(readCertificateFiles(TLS), { cert: cert.cert, key: cert.key }, 'a good pair → its contents')
})
