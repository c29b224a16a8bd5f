// Minimal RFC 6570 matching for resource templates: {var} matches one path segment,
// {+var} and {#var} match anything, {?a,b} and {&a} match a query part. Compiled once per template.
const CACHE_LIMIT = 1_000

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function expressionPattern(expression: string): string {
  const op = expression[0]
  if (op === '+' || op === '#') return '.*'
  if (op === '?' || op === '&') return '(?:[?&][^#]*)?'
  if (op === '/') return '(?:/[^?#]*)?'
  return '[^/?#]*'
}

export function compileUriTemplate(template: string): RegExp {
  let pattern = ''
  let last = 0
  for (const match of template.matchAll(/\{([^}]*)\}/g)) {
    pattern += escapeRegExp(template.slice(last, match.index)) + expressionPattern(match[1])
    last = match.index + match[0].length
  }
  return new RegExp(`^${pattern}${escapeRegExp(template.slice(last))}$`)
}

export class UriTemplateMatcher {
  readonly #compiled = new Map<string, RegExp>()

  matches(template: string, uri: string): boolean {
    let regex = this.#compiled.get(template)
    if (!regex) {
      if (this.#compiled.size >= CACHE_LIMIT) this.#compiled.clear()
      regex = compileUriTemplate(template)
      this.#compiled.set(template, regex)
    }
    return regex.test(uri)
  }
}
