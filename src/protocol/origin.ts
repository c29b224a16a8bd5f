// Host and Origin allow-lists against DNS rebinding (SEC-1, SEC-2). Pure.

export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]']

// "Host: example.com:8080" → "example.com"; "[::1]:80" → "[::1]".
export function hostName(hostHeader: string): string {
  const host = hostHeader.trim().toLowerCase()
  if (host.startsWith('[')) {
    const end = host.indexOf(']')
    return end === -1 ? host : host.slice(0, end + 1)
  }
  const colon = host.indexOf(':')
  return colon === -1 ? host : host.slice(0, colon)
}

function matches(allowed: readonly string[], value: string): boolean {
  return allowed.includes('*') || allowed.includes(value)
}

// An entry may name a host ("api.example.com") or host:port ("api.example.com:443").
export function isHostAllowed(allowed: readonly string[], hostHeader: string | undefined): boolean {
  if (hostHeader === undefined) return false
  const full = hostHeader.trim().toLowerCase()
  return matches(allowed, full) || matches(allowed, hostName(full))
}

// SEC-2: no Origin (non-browser client) is allowed. An entry is a full origin
// ("https://app.example.com") or a bare host name, which allows that host on any scheme/port.
export function isOriginAllowed(allowed: readonly string[], origin: string | undefined): boolean {
  if (origin === undefined) return true
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false
  }
  const host = url.hostname.toLowerCase()
  return matches(allowed, url.origin.toLowerCase()) || matches(allowed, host)
}
