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

const spec = (flags: Partial<MethodSpec>): MethodSpec => ({ mrtr: false, paginated: false, cacheable: false, ...flags })

export const MODERN_METHODS: ReadonlyMap<string, MethodSpec> = new Map([
  ['server/discover', spec({ cacheable: true })],
  ['tools/list', spec({ paginated: true, cacheable: true })],
  ['tools/call', spec({ nameParam: 'name', mrtr: true })],
  ['prompts/list', spec({ paginated: true, cacheable: true })],
  ['prompts/get', spec({ nameParam: 'name', mrtr: true })],
  ['resources/list', spec({ paginated: true, cacheable: true })],
  ['resources/templates/list', spec({ paginated: true, cacheable: true })],
  ['resources/read', spec({ nameParam: 'uri', mrtr: true, cacheable: true })],
  ['completion/complete', spec({})],
  ['subscriptions/listen', spec({})],
])

export function getMethodSpec(method: string): MethodSpec | undefined {
  return MODERN_METHODS.get(method)
}
