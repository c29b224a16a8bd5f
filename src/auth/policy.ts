// Per-tool policy: glob rules over namespaced tool and prompt names and resource URIs → the scopes
// needed (CAP-4, AUTH-9, AUTH-10). Lists show only what the caller may use; using anything else is
// refused with every scope the operation needs. Pure; compiled once from the config.
import type { PolicyRule } from './auth-types.ts'
import type { Principal } from './principal.ts'

export const POLICY_KIND = {
  tool: 'tools',
  prompt: 'prompts',
  resource: 'resources',
} as const
export type PolicyKind = (typeof POLICY_KIND)[keyof typeof POLICY_KIND]

// Memoised decisions per name; names come from clients, so the memo is bounded.
const MAX_MEMO_ENTRIES = 10_000

interface CompiledRule {
  patterns: Record<PolicyKind, RegExp[]>
  scopes: string[]
}

export interface PolicyOptions {
  requiredScopes: readonly string[]
  // AUTH-10: a granted scope → the scopes it covers.
  hierarchy: Readonly<Record<string, readonly string[]>>
}

// `*` matches any run of characters (including none); everything else is literal.
export function compileGlob(pattern: string): RegExp {
  const body = pattern.split('*').map((part) => part.replace(/[\\^$.+?()[\]{}|/-]/g, '\\$&')).join('.*')
  return new RegExp(`^${body}$`, 's')
}

function compileRule(rule: PolicyRule): CompiledRule {
  return {
    patterns: { tools: rule.tools.map(compileGlob), prompts: rule.prompts.map(compileGlob), resources: rule.resources.map(compileGlob) },
    scopes: rule.scopes,
  }
}

export class Policy {
  readonly #rules: CompiledRule[]
  readonly #options: PolicyOptions
  readonly #kinds: ReadonlySet<PolicyKind>
  readonly #memo = new Map<string, readonly string[]>()
  readonly #granted = new WeakMap<Principal, ReadonlySet<string>>()

  constructor(rules: readonly PolicyRule[], options: PolicyOptions) {
    this.#rules = rules.map(compileRule)
    this.#options = options
    this.#kinds = new Set(this.#rules.flatMap((r) => (Object.keys(r.patterns) as PolicyKind[]).filter((k) => r.patterns[k].length > 0)))
  }

  // Scopes the matching rules need (every matching rule's, deduplicated); [] when none match.
  ruleScopes(kind: PolicyKind, name: string): readonly string[] {
    if (!this.#kinds.has(kind)) return []
    const key = `${kind}\u0000${name}`
    let scopes = this.#memo.get(key)
    if (scopes === undefined) {
      const set = new Set<string>()
      for (const rule of this.#rules) if (rule.patterns[kind].some((re) => re.test(name))) for (const s of rule.scopes) set.add(s)
      scopes = [...set]
      if (this.#memo.size >= MAX_MEMO_ENTRIES) this.#memo.clear()
      this.#memo.set(key, scopes)
    }
    return scopes
  }

  // The granted scopes with everything they cover (AUTH-10), computed once per principal.
  granted(principal: Principal): ReadonlySet<string> {
    let set = this.#granted.get(principal)
    if (set) return set
    const expanded = new Set<string>()
    const visit = (scope: string): void => {
      if (expanded.has(scope)) return
      expanded.add(scope)
      for (const narrower of this.#options.hierarchy[scope] ?? []) visit(narrower)
    }
    for (const scope of principal.scopes) visit(scope)
    set = expanded
    this.#granted.set(principal, set)
    return set
  }

  hasScopes(principal: Principal, scopes: readonly string[]): boolean {
    if (scopes.length === 0) return true
    const granted = this.granted(principal)
    return scopes.every((s) => granted.has(s))
  }

  // undefined when allowed; otherwise every scope the operation needs (required ∪ rules), for one
  // insufficient_scope challenge (AUTH-9).
  missingFor(principal: Principal, kind: PolicyKind, name: string): string[] | undefined {
    const rule = this.ruleScopes(kind, name)
    if (this.hasScopes(principal, rule)) return undefined
    return [...new Set([...this.#options.requiredScopes, ...rule])]
  }

  allows(principal: Principal, kind: PolicyKind, name: string): boolean {
    return this.hasScopes(principal, this.ruleScopes(kind, name))
  }

  // CAP-4: the items of a list the caller may use, in their order.
  filter<T>(principal: Principal, kind: PolicyKind, items: readonly T[], nameOf: (item: T) => string): T[] {
    if (!this.#kinds.has(kind)) return [...items]
    return items.filter((item) => this.allows(principal, kind, nameOf(item)))
  }

  // Whether any rule concerns this kind (lists then vary by caller: cacheScope private).
  covers(kind: PolicyKind): boolean {
    return this.#kinds.has(kind)
  }
}
