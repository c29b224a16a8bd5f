// Resource subscriptions of the listen hub (SUB-3): which backend serves a subscribed URI, the bound on
// upstream resource listens per backend, and which of a client's subscriptions delivers an update.
import { coversUri } from '../protocol/subscriptions.ts'
import type { BackendEntry } from './backend-set.ts'

// A subscribed URI and the backend that owns it (resolveUri).
export interface ResourceRoute {
  uri: string
  entry: BackendEntry
}

// Each upstream resource listen holds a connection (HTTP) or a subscription (stdio) open for as
// long as clients want it: a bound per backend keeps one client from opening thousands upstream.
const MAX_RESOURCE_LISTENS = 256

export function resourceKey(route: ResourceRoute): string {
  return `${route.entry.backend.name}\u0000${route.uri}`
}

// A URI that already has an upstream listen (`open`, by resourceKey) costs nothing; a new one must
// fit its backend's budget, else `onOver` hears of it and it is left out. Soft limit: listens
// requested concurrently are counted when they open, not here.
export function withinListenBudget(routes: ResourceRoute[], open: ReadonlyMap<string, { entry: BackendEntry }>, onOver: (route: ResourceRoute) => void): ResourceRoute[] {
  const counts = new Map<BackendEntry, number>()
  for (const listen of open.values()) counts.set(listen.entry, (counts.get(listen.entry) ?? 0) + 1)
  return routes.filter((route) => {
    if (open.has(resourceKey(route))) return true
    const count = counts.get(route.entry) ?? 0
    if (count >= MAX_RESOURCE_LISTENS) {
      onOver(route)
      return false
    }
    counts.set(route.entry, count + 1)
    return true
  })
}

// The most specific of a client's subscriptions on this backend that covers the updated URI: a
// client subscribed to a parent and a child URI gets the update once.
export function bestRoute(routes: readonly ResourceRoute[], entry: BackendEntry, uri: string): string | undefined {
  let best: string | undefined
  for (const route of routes) {
    if (route.entry === entry && coversUri(route.uri, uri) && (best === undefined || route.uri.length > best.length)) best = route.uri
  }
  return best
}
