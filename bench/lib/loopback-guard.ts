// The benchmark only ever talks to this machine: every URL it targets must be loopback, and every
// server it starts (above all the peers, which default to all interfaces) must listen on
// loopback only. Checked from /proc/net/tcp{,6}, so it holds whatever the process claims.
import { readFileSync } from 'node:fs'

const LISTEN_STATE = '0A'
const IPV6_LOOPBACK = '00000000000000000000000001000000'
const IPV4_MAPPED_PREFIX = '0000000000000000FFFF0000'

export function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]' || hostname === '::1') return true
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
}

export function assertLoopbackUrl(text: string): URL {
  const url = new URL(text)
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !isLoopbackHost(url.hostname)) {
    throw new Error(`refusing non-loopback target ${text}`)
  }
  return url
}

// /proc/net/tcp stores an IPv4 address as little-endian hex: 127.x.y.z ends in "7F".
function isLoopbackHex(hex: string): boolean {
  if (hex.length === 8) return hex.endsWith('7F')
  if (hex === IPV6_LOOPBACK) return true
  return hex.startsWith(IPV4_MAPPED_PREFIX) && hex.endsWith('7F')
}

function readListeners(file: string, port: number): string[] {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return []
  }
  const addresses: string[] = []
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/)
    if (fields.length < 4 || fields[3] !== LISTEN_STATE) continue
    const [hex, portHex] = fields[1].split(':')
    if (Number.parseInt(portHex, 16) === port) addresses.push(hex)
  }
  return addresses
}

// Throws when anything listens on `port` on a non-loopback address; true when something listens.
export function assertLoopbackListener(port: number): boolean {
  const addresses = [...readListeners('/proc/net/tcp', port), ...readListeners('/proc/net/tcp6', port)]
  const exposed = addresses.filter((hex) => !isLoopbackHex(hex))
  if (exposed.length > 0) throw new Error(`port ${port} listens beyond loopback (${exposed.join(', ')})`)
  return addresses.length > 0
}
