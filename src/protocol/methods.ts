// The modern method table (RPC-9): which methods exist, which mirror a name header (HDR-2),
// which may answer input_required (MRTR-1), which are paginated (PAGE-1). Pure data.
export interface MethodSpec {
  // Param that Mcp-Name mirrors (HDR-2), if any.
  nameParam?: 'name' | 'uri'
  mrtr: boolean
  paginated: boolean
  // The result carries ttlMs/cacheScope (CACHE-1).
  cacheable: boolean
}

const spec = (nameParam: MethodSpec['nameParam'], mrtr: boolean, paginated: boolean, cacheable: boolean): MethodSpec =>
  ({ nameParam, mrtr, paginated, cacheable })

export const MODERN_METHODS: ReadonlyMap<string, MethodSpec> = new Map([
  ['server/discover', spec(undefined, false, false, true)],
  ['tools/list', spec(undefined, false, true, true)],
  ['tools/call', spec('name', true, false, false)],
  ['prompts/list', spec(undefined, false, true, true)],
  ['prompts/get', spec('name', true, false, false)],
  ['resources/list', spec(undefined, false, true, true)],
  ['resources/templates/list', spec(undefined, false, true, true)],
  ['resources/read', spec('uri', true, false, true)],
  ['completion/complete', spec(undefined, false, false, false)],
  ['subscriptions/listen', spec(undefined, false, false, false)],
])

export function getMethodSpec(method: string): MethodSpec | undefined {
  return MODERN_METHODS.get(method)
}
