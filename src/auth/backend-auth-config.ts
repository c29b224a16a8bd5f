// Validation of an HTTP backend's `auth` (beside `headers`): the gateway's own credential toward
// that backend (AUTH-8, G12). Pure; every error listed with its path.
import type { BackendAuthConfig } from './auth-types.ts'
import { Checks } from './config-checks.ts'

const KEYS = new Set(['type', 'tokenUrl', 'clientId', 'clientSecret', 'scope', 'audience'])
const TYPES = new Set(['clientCredentials', 'tokenExchange'])

export type BackendAuthResult = { auth?: BackendAuthConfig; errors: string[] }

export function validateBackendAuth(raw: unknown, path: string): BackendAuthResult {
  if (raw === undefined) return { errors: [] }
  const c = new Checks()
  const o = c.object(path, raw, KEYS)
  if (!o) return { errors: c.errors }
  if (typeof o.type !== 'string' || !TYPES.has(o.type)) {
    c.add(`${path}.type`, 'must be "clientCredentials" or "tokenExchange"')
    return { errors: c.errors }
  }
  const common = {
    tokenUrl: c.url(`${path}.tokenUrl`, o.tokenUrl),
    clientId: c.string(`${path}.clientId`, o.clientId),
    clientSecret: c.string(`${path}.clientSecret`, o.clientSecret),
  }
  const scope = c.optionalString(`${path}.scope`, o.scope)
  const audience = c.optionalString(`${path}.audience`, o.audience)
  const auth: BackendAuthConfig = o.type === 'clientCredentials' ? { type: 'clientCredentials', ...common } : { type: 'tokenExchange', ...common }
  if (scope !== undefined) auth.scope = scope
  if (audience !== undefined) auth.audience = audience
  return c.errors.length > 0 ? { errors: c.errors } : { auth, errors: [] }
}

// A backend that both sets an Authorization header and has `auth` would send two credentials.
export function conflictsWithHeaders(headers: Readonly<Record<string, string>>, path: string): string | undefined {
  const named = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')
  return named ? `${path}: set either headers.authorization or auth, not both` : undefined
}
