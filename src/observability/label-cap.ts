// Bounded label values (README "Operations"): a value keeps its own label until `limit` distinct
// (scope, value) pairs were seen; a new one after that gets the fallback. One rule for the
// Prometheus tool label and the OpenTelemetry attributes. Sets per scope: no key string per call.
export class LabelCap {
  readonly #seen = new Map<string, Set<string>>()
  readonly #limit: number
  readonly #fallback: string
  #pairs = 0

  constructor(limit: number, fallback = 'other') {
    this.#limit = limit
    this.#fallback = fallback
  }

  // `scope`: what the value is counted under (a backend's name), '' for none.
  label(value: string, scope = ''): string {
    let values = this.#seen.get(scope)
    if (values?.has(value)) return value
    if (this.#pairs >= this.#limit) return this.#fallback
    if (values === undefined) this.#seen.set(scope, (values = new Set()))
    values.add(value)
    this.#pairs++
    return value
  }
}
