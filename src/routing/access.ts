// What routing asks of authorization (a port: src/auth/gateway-auth.ts implements it): may this
// caller use this tool, prompt or resource (AUTH-9), and which items of a list may they see (CAP-4).
import type { GatewayError } from '../errors.ts'
import type { Principal } from '../auth/principal.ts'
import type { PolicyKind } from '../auth/policy.ts'
import type { ListKind } from './list-kinds.ts'

export interface RouteAccess {
  // A 403 (insufficient_scope) for using what the policy keeps from this caller; else undefined.
  forbid(principal: Principal, kind: PolicyKind, name: string): GatewayError | undefined
  // Which names (URIs) of a list the caller may see; undefined when no rule concerns the kind.
  visibility(principal: Principal, kind: PolicyKind): ((name: string) => boolean) | undefined
}

// What one caller's listing is bound to and filtered by (CACHE-12, PAGE-4).
export interface ListView {
  // Sealed into each cursor: another caller's cursor is refused (PAGE-4).
  binding: string
  visible?: (name: string) => boolean
}

export function policyKindOf(kind: ListKind): PolicyKind {
  return kind.id === 'templates' ? 'resources' : kind.id
}
