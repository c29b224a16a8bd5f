// Plays the user in a browser at oidc-provider's dev interactions: follows the authorization
// redirects with a cookie jar, fills the login form (any login) and approves the consent form,
// until the authorization server redirects to the client's redirect URI, which is returned.
import { Agent, request } from 'undici'

const MAX_STEPS = 20

function cookieHeader(jar: Map<string, string>): string {
  return [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
}

function keepCookies(jar: Map<string, string>, setCookie: string | string[] | undefined): void {
  for (const line of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
    const [pair] = line.split(';')
    const eq = pair.indexOf('=')
    jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim())
  }
}

// The form on an interaction page: where it posts and which prompt it answers.
function readForm(html: string): { action: string; prompt: string } {
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]
  const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1]
  if (!action || !prompt) throw new Error('no interaction form on the page')
  return { action: action.replace(/&amp;/g, '&'), prompt }
}

export async function approveAuthorization(authorizationUrl: URL, options: { redirectUri: string; login: string }): Promise<URL> {
  const agent = new Agent()
  const jar = new Map<string, string>()
  try {
    let next: { url: URL; method: 'GET' | 'POST'; body?: string } = { url: authorizationUrl, method: 'GET' }
    for (let step = 0; step < MAX_STEPS; step++) {
      if (next.url.href.startsWith(options.redirectUri)) return next.url
      const headers: Record<string, string> = { cookie: cookieHeader(jar) }
      if (next.body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded'
      const response = await request(next.url, { method: next.method, headers, body: next.body, dispatcher: agent })
      keepCookies(jar, response.headers['set-cookie'])
      const location = response.headers.location
      const text = await response.body.text()
      if (typeof location === 'string') {
        next = { url: new URL(location, next.url), method: 'GET' }
        continue
      }
      if (response.statusCode !== 200) throw new Error(`interaction: HTTP ${response.statusCode} at ${next.url.pathname}: ${text.slice(0, 200)}`)
      const form = readForm(text)
      const fields: Record<string, string> = form.prompt === 'login' ? { prompt: 'login', login: options.login, password: 'any' } : { prompt: form.prompt }
      next = { url: new URL(form.action, next.url), method: 'POST', body: new URLSearchParams(fields).toString() }
    }
    throw new Error('interaction: too many steps')
  } finally {
    await agent.close()
  }
}
