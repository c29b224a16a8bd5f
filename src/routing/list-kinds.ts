// The four aggregated lists (PAGE-1): their method, result key and owning capability.
export interface ListKind {
  id: 'tools' | 'prompts' | 'resources' | 'templates'
  method: string
  key: string
  capability: 'tools' | 'prompts' | 'resources'
  // Items carry a name the gateway namespaces (tools, prompts); URIs are never rewritten.
  named: boolean
}

export const LIST_KINDS: ReadonlyMap<string, ListKind> = new Map([
  ['tools/list', { id: 'tools', method: 'tools/list', key: 'tools', capability: 'tools', named: true }],
  ['prompts/list', { id: 'prompts', method: 'prompts/list', key: 'prompts', capability: 'prompts', named: true }],
  ['resources/list', { id: 'resources', method: 'resources/list', key: 'resources', capability: 'resources', named: false }],
  ['resources/templates/list', { id: 'templates', method: 'resources/templates/list', key: 'resourceTemplates', capability: 'resources', named: false }],
] as const)

export function listKind(id: ListKind['id']): ListKind {
  for (const kind of LIST_KINDS.values()) if (kind.id === id) return kind
  throw new Error(`unknown list kind ${id}`)
}
