// The configured backends in their configured order (the order every aggregation follows, CAP-5).
import type { BackendConfig } from '../config/types.ts'
import type { Backend } from '../upstream/backend.ts'
import type { JsonObject } from '../protocol/jsonrpc.ts'
import { isJsonObject } from '../protocol/jsonrpc.ts'
import { toGatewayName } from './names.ts'

export interface BackendEntry {
  backend: Backend
  config: BackendConfig
}

export class BackendSet {
  readonly entries: readonly BackendEntry[]
  readonly separator: string

  constructor(entries: readonly BackendEntry[], separator: string) {
    this.entries = entries
    this.separator = separator
  }

  get(name: string): BackendEntry | undefined {
    return this.entries.find((e) => e.backend.name === name)
  }

  // Backends that are up and declared the capability (DISC-5).
  offering(capability: string): BackendEntry[] {
    return this.entries.filter((e) => e.backend.status().up && isJsonObject(e.backend.capabilities()[capability]))
  }

  gatewayName(entry: BackendEntry, name: string): string {
    return toGatewayName(entry.config.namespace, this.separator, name)
  }

  // Backends whose namespace could have produced this gateway name, with the backend-side name.
  candidates(gatewayName: string): Array<{ entry: BackendEntry; name: string }> {
    const found: Array<{ entry: BackendEntry; name: string }> = []
    for (const entry of this.entries) {
      const ns = entry.config.namespace
      if (ns === '') found.push({ entry, name: gatewayName })
      else if (gatewayName.startsWith(ns + this.separator)) found.push({ entry, name: gatewayName.slice(ns.length + this.separator.length) })
    }
    return found
  }

  capabilitiesOf(entry: BackendEntry): JsonObject {
    return entry.backend.capabilities()
  }
}
