// RFC 8693 token exchange for the test authorization server. oidc-provider has no built-in
// token-exchange grant; it has registerGrantType for extension grants, which this uses: the subject
// token must be a JWT access token this server issued (checked against its own JWKS), and the new
// token is a real oidc-provider AccessToken (JWT format) for the requested audience, carrying the
// subject's `sub` and the exchanging client as `client_id`.
import { createLocalJWKSet, jwtVerify, type JWK } from 'jose'
import { errors, type OidcContext, type Provider } from 'oidc-provider'

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange'
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token'
export const EXCHANGE_PARAMS = ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'resource', 'scope', 'actor_token', 'actor_token_type']

export interface ExchangeRecord {
  clientId: string
  subject: string
  audience: string
}

export function registerTokenExchange(provider: Provider, options: { issuer: string; jwks: { keys: JWK[] }; exchanges: ExchangeRecord[] }): void {
  const keys = createLocalJWKSet(options.jwks)
  provider.registerGrantType(TOKEN_EXCHANGE_GRANT, async (ctx: OidcContext) => {
    const params = ctx.oidc.params as Record<string, string | undefined>
    const client = ctx.oidc.client!
    if (params.subject_token_type !== ACCESS_TOKEN_TYPE || !params.subject_token) throw new errors.InvalidRequest('subject_token of type access_token required')
    const audience = params.audience ?? params.resource
    if (!audience) throw new errors.InvalidTarget('audience or resource required')
    let subject: string
    try {
      const { payload } = await jwtVerify(params.subject_token, keys, { issuer: options.issuer })
      subject = String(payload.sub)
    } catch {
      throw new errors.InvalidGrant('subject_token is not a valid access token of this server')
    }
    const resourceServer = {
      audience, scope: params.scope ?? 'backend', accessTokenTTL: 300, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } },
      identifier: () => audience, get scopes() { return new Set(this.scope.split(' ')) },
    }
    const token = new provider.AccessToken({
      accountId: subject, client, scope: resourceServer.scope, resourceServer,
    })
    const value = await token.save()
    options.exchanges.push({ clientId: client.clientId, subject, audience })
    ctx.body = {
      access_token: value, issued_token_type: ACCESS_TOKEN_TYPE, token_type: 'Bearer', expires_in: token.expiration, scope: token.scope,
    }
  }, EXCHANGE_PARAMS)
}
