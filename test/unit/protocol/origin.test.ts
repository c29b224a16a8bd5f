// Host and Origin allow-lists against DNS rebinding (SEC-1, SEC-2).
import t from 'tap'
import { LOOPBACK_HOSTS, hostName, isHostAllowed, isOriginAllowed } from '../../../src/protocol/origin.ts'

t.test('hostName', async (t) => {
  const cases: Array<[string, string]> = [
    ['example.com', 'example.com'],
    ['Example.COM:8080', 'example.com'],
    ['127.0.0.1:3000', '127.0.0.1'],
    ['[::1]:80', '[::1]'],
    ['[::1]', '[::1]'],
    ['[::1', '[::1'],
    ['  localhost  ', 'localhost'],
  ]
  for (const [input, expected] of cases) t.equal(hostName(input), expected, `${JSON.stringify(input)} → ${expected}`)
})

t.test('isHostAllowed', async (t) => {
  const cases: Array<[readonly string[], string | undefined, boolean]> = [
    [LOOPBACK_HOSTS, '127.0.0.1:8080', true],
    [LOOPBACK_HOSTS, 'localhost', true],
    [LOOPBACK_HOSTS, 'LOCALHOST:1', true],
    [LOOPBACK_HOSTS, '[::1]:8080', true],
    [LOOPBACK_HOSTS, 'evil.example', false],
    [LOOPBACK_HOSTS, 'localhost.evil.example', false],
    [LOOPBACK_HOSTS, '127.0.0.1.nip.io', false],
    [LOOPBACK_HOSTS, undefined, false],
    [LOOPBACK_HOSTS, '', false],
    [['api.example.com'], 'api.example.com:443', true],
    [['api.example.com:443'], 'api.example.com:443', true],
    [['api.example.com:443'], 'api.example.com:8443', false],
    [['api.example.com:443'], 'api.example.com', false],
    [['*'], 'anything.example', true],
    [[], 'localhost', false],
  ]
  for (const [allowed, host, expected] of cases) {
    t.equal(isHostAllowed(allowed, host), expected, `Host ${JSON.stringify(host)} with [${allowed.join(', ')}] → ${expected ? 'allowed' : '403'}`)
  }
})

t.test('isOriginAllowed', async (t) => {
  const cases: Array<[readonly string[], string | undefined, boolean]> = [
    [LOOPBACK_HOSTS, undefined, true],
    [LOOPBACK_HOSTS, 'http://localhost:5173', true],
    [LOOPBACK_HOSTS, 'https://127.0.0.1', true],
    [LOOPBACK_HOSTS, 'http://[::1]:3000', true],
    [LOOPBACK_HOSTS, 'http://LOCALHOST:1', true],
    [LOOPBACK_HOSTS, 'https://evil.example', false],
    [LOOPBACK_HOSTS, 'http://localhost.evil.example', false],
    [LOOPBACK_HOSTS, 'null', false],
    [LOOPBACK_HOSTS, '', false],
    [LOOPBACK_HOSTS, 'not a url', false],
    [['https://app.example.com'], 'https://app.example.com', true],
    [['https://app.example.com'], 'https://app.example.com:443', true],
    [['https://app.example.com'], 'http://app.example.com', false],
    [['https://app.example.com'], 'https://app.example.com:8443', false],
    [['app.example.com'], 'http://app.example.com:8443', true],
    [['*'], 'https://anyone.example', true],
    [['*'], 'null', false],
  ]
  for (const [allowed, origin, expected] of cases) {
    t.equal(isOriginAllowed(allowed, origin), expected, `Origin ${JSON.stringify(origin)} with [${allowed.join(', ')}] → ${expected ? 'allowed' : '403'}`)
  }
})
