// Mcp-Param-{Name} headers (HDR-7..11): reading x-mcp-header annotations from a tool's inputSchema,
// checking a client's headers against the arguments, and building the backend's headers. Pure.
import { isJsonObject, type JsonObject } from './jsonrpc.ts'
import { HEADER, decodeHeaderValue, encodeHeaderValue, headerMatchesValue } from './headers.ts'

export interface HeaderParam {
  header: string // lower-case, without the Mcp-Param- prefix
  path: string[] // property path from the arguments root
  type: string
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const HEADER_TYPES = new Set(['string', 'integer', 'boolean'])
const MAX_DEPTH = 32
const ANNOTATION = 'x-mcp-header'
const UNREACHABLE = 'x-mcp-header not reachable through properties alone'
// JSON Schema keywords whose value is a map of subschemas, or a subschema or a list of them.
// Values of other keywords (const, default, enum, examples …) are data, never annotations.
const SCHEMA_MAPS = ['$defs', 'definitions', 'patternProperties', 'dependentSchemas']
const SCHEMA_SLOTS = ['items', 'prefixItems', 'additionalItems', 'contains', 'additionalProperties', 'propertyNames',
  'unevaluatedItems', 'unevaluatedProperties', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else']

interface Walk { out: HeaderParam[]; problems: string[] }

function annotate(prop: JsonObject, path: string[], walk: Walk): void {
  const annotation = prop[ANNOTATION]
  const where = path.join('.')
  // HDR-11: a non-empty token, on a string/integer/boolean property.
  if (typeof annotation !== 'string' || !TOKEN.test(annotation)) walk.problems.push(`invalid x-mcp-header on ${where}`)
  else if (!HEADER_TYPES.has(String(prop.type))) walk.problems.push(`x-mcp-header on ${where} of type ${String(prop.type)}`)
  else walk.out.push({ header: annotation.toLowerCase(), path, type: String(prop.type) })
}

function subschemas(schema: JsonObject): JsonObject[] {
  const found: JsonObject[] = []
  for (const key of SCHEMA_MAPS) if (isJsonObject(schema[key])) found.push(...Object.values(schema[key]).filter(isJsonObject))
  for (const key of SCHEMA_SLOTS) {
    const value = schema[key]
    if (Array.isArray(value)) found.push(...value.filter(isJsonObject))
    else if (isJsonObject(value)) found.push(value)
  }
  return found
}

// HDR-11: annotations count only on properties reached from the root through `properties` alone
// (`path` set); one anywhere else (items, oneOf, $defs …, or on the root) makes the tool invalid.
function collect(schema: JsonObject, path: string[] | undefined, depth: number, walk: Walk): void {
  if (depth >= MAX_DEPTH) return
  if (isJsonObject(schema.properties)) {
    for (const [name, prop] of Object.entries(schema.properties)) {
      if (!isJsonObject(prop)) continue
      const at = path === undefined ? undefined : [...path, name]
      if (prop[ANNOTATION] !== undefined && at !== undefined) annotate(prop, at, walk)
      else if (prop[ANNOTATION] !== undefined) walk.problems.push(UNREACHABLE)
      collect(prop, at, depth + 1, walk)
    }
  }
  for (const sub of subschemas(schema)) {
    if (sub[ANNOTATION] !== undefined) walk.problems.push(UNREACHABLE)
    collect(sub, undefined, depth + 1, walk)
  }
}

export type HeaderParamsResult = { ok: true; params: HeaderParam[] } | { ok: false; problem: string }

// HDR-11: the annotations of one tool, or why the tool must be dropped from tools/list.
export function readHeaderParams(tool: JsonObject): HeaderParamsResult {
  const schema = tool.inputSchema
  if (!isJsonObject(schema)) return { ok: true, params: [] }
  const walk: Walk = { out: [], problems: [] }
  if (schema[ANNOTATION] !== undefined) walk.problems.push('x-mcp-header on the inputSchema itself')
  collect(schema, [], 0, walk)
  const names = new Set<string>()
  for (const p of walk.out) {
    if (names.has(p.header)) walk.problems.push(`duplicate x-mcp-header ${p.header}`)
    names.add(p.header)
  }
  return walk.problems.length > 0 ? { ok: false, problem: [...new Set(walk.problems)].join('; ') } : { ok: true, params: walk.out }
}

function valueAt(args: unknown, path: string[]): unknown {
  let current = args
  for (const key of path) current = isJsonObject(current) ? current[key] : undefined
  return current
}

// HDR-7, HDR-8: every annotated argument present needs its header, with a matching value.
export function checkParamHeaders(params: HeaderParam[], args: unknown, sent: ReadonlyMap<string, string>): string | undefined {
  for (const p of params) {
    const value = valueAt(args, p.path)
    const raw = sent.get(p.header)
    const name = `${HEADER.paramPrefix}${p.header}`
    if (value === undefined || value === null) {
      if (raw !== undefined) return `${name} header sent without a value in arguments`
      continue
    }
    if (raw === undefined) return `missing ${name} header`
    const decoded = decodeHeaderValue(raw)
    if (decoded === undefined) return `${name} header has invalid characters`
    if (!headerMatchesValue(decoded, value)) return `${name} header does not match the arguments`
  }
  return undefined
}

// Names (after Mcp-Param-) that look like a credential: Mcp-Param-Authorization, -Cookie,
// -Proxy-Authorization, -Api-Key, -Access-Token, -Client-Secret, -Password, -Session …
const CREDENTIAL_LIKE = /auth|cookie|token|secret|passw|api-?key|credential|session|bearer|signature/

// AUTH-8 over HDR-9: an undeclared parameter header that looks like a credential is never forwarded
// (a client's credentials never reach a backend); a declared one is rebuilt from the arguments.
export function isCredentialLike(name: string): boolean {
  return CREDENTIAL_LIKE.test(name)
}

// HDR-10: the backend's Mcp-Param-* headers, computed from the body; HDR-9: unknown ones copied,
// except credential-looking ones (AUTH-8).
export function buildParamHeaders(params: HeaderParam[], args: unknown, sent: ReadonlyMap<string, string>): Record<string, string> {
  const headers: Record<string, string> = {}
  const known = new Set(params.map((p) => p.header))
  for (const [name, raw] of sent) if (!known.has(name) && !isCredentialLike(name)) headers[`${HEADER.paramPrefix}${name}`] = raw
  for (const p of params) {
    const value = valueAt(args, p.path)
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      headers[`${HEADER.paramPrefix}${p.header}`] = encodeHeaderValue(value)
    }
  }
  return headers
}
