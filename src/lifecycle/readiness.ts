// /readyz (README "Operations"): ready when every backend has been probed once (up or down) and
// enough are up: at least `minBackendsUp` when it is set, else every backend marked `required`
// (the default). A draining gateway is never ready. The verdict names what is missing. Pure.
import type { BackendStatus } from '../upstream/backend.ts'

export interface ReadinessBackend {
  status: BackendStatus
  required: boolean
  // Its first probe has settled (up or down).
  probed: boolean
}

export interface ReadinessInput {
  backends: readonly ReadinessBackend[]
  minBackendsUp?: number
  draining: boolean
}

export interface Readiness {
  ready: boolean
  status: 'ready' | 'not ready' | 'draining'
  // In words, what keeps it from being ready (absent when ready).
  reason?: string
  notProbed: string[]
  down: Array<{ name: string; required: boolean; reason?: string }>
  up: number
  backends: BackendStatus[]
}

export function readiness(input: ReadinessInput): Readiness {
  const notProbed = input.backends.filter((b) => !b.probed).map((b) => b.status.name)
  const down = input.backends.filter((b) => b.probed && !b.status.up).map((b) => ({ name: b.status.name, required: b.required, reason: b.status.reason }))
  const up = input.backends.filter((b) => b.status.up).length
  const reason = input.draining ? 'shutting down' : whyNotReady(input, notProbed, down, up)
  const status = input.draining ? 'draining' : reason === undefined ? 'ready' : 'not ready'
  const verdict: Readiness = { ready: reason === undefined, status, notProbed, down, up, backends: input.backends.map((b) => b.status) }
  if (reason !== undefined) verdict.reason = reason
  return verdict
}

function whyNotReady(input: ReadinessInput, notProbed: string[], down: Readiness['down'], up: number): string | undefined {
  if (notProbed.length > 0) return `not probed yet: ${notProbed.join(', ')}`
  if (input.minBackendsUp !== undefined) {
    return up >= input.minBackendsUp ? undefined : `${up} backend(s) up, minBackendsUp is ${input.minBackendsUp}`
  }
  const requiredDown = down.filter((b) => b.required).map((b) => b.name)
  return requiredDown.length === 0 ? undefined : `required backend(s) down: ${requiredDown.join(', ')}`
}
