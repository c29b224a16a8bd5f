// Who a stdio child runs as (README "What a stdio backend can reach"): optional `user` and `group`
// per backend, names or numeric ids, resolved from /etc/passwd and /etc/group (a user's own group
// when only `user` is given). Running a child as another user needs the gateway to run as root;
// otherwise it is a configuration error. The resolution is pure; localIdentitySystem reads the files.
import { readFileSync } from 'node:fs'
export interface ChildIdentity {
  uid?: number
  gid?: number
}

export interface IdentitySpec {
  user?: string
  group?: string
}

export interface IdentitySystem {
  // The gateway's own uid (process.getuid()).
  uid: number
  // The contents of /etc/passwd and /etc/group.
  passwd: () => string
  groups: () => string
}

export type IdentityResult = { ok: true; identity: ChildIdentity } | { ok: false; problem: string }

const NUMERIC = /^\d+$/

// name:password:id[:gid]… lines → the entry named `name`.
function findEntry(table: string, name: string): string[] | undefined {
  for (const line of table.split('\n')) {
    const fields = line.split(':')
    if (fields[0] === name && fields.length >= 3) return fields
  }
  return undefined
}

function resolveUser(user: string, system: IdentitySystem): { uid: number; gid?: number } | string {
  if (NUMERIC.test(user)) return { uid: Number(user) }
  const entry = findEntry(system.passwd(), user)
  if (entry === undefined || !NUMERIC.test(entry[2])) return `user "${user}" is not in /etc/passwd`
  return { uid: Number(entry[2]), gid: NUMERIC.test(entry[3] ?? '') ? Number(entry[3]) : undefined }
}

function resolveGroup(group: string, system: IdentitySystem): number | string {
  if (NUMERIC.test(group)) return Number(group)
  const entry = findEntry(system.groups(), group)
  if (entry === undefined || !NUMERIC.test(entry[2])) return `group "${group}" is not in /etc/group`
  return Number(entry[2])
}

export function resolveChildIdentity(spec: IdentitySpec, system: IdentitySystem): IdentityResult {
  if (spec.user === undefined && spec.group === undefined) return { ok: true, identity: {} }
  if (system.uid !== 0) return { ok: false, problem: `user/group need the gateway to run as root (it runs as uid ${system.uid})` }
  const user = spec.user === undefined ? undefined : resolveUser(spec.user, system)
  if (typeof user === 'string') return { ok: false, problem: user }
  const group = spec.group === undefined ? user?.gid : resolveGroup(spec.group, system)
  if (typeof group === 'string') return { ok: false, problem: group }
  const identity: ChildIdentity = {}
  if (user !== undefined) identity.uid = user.uid
  if (group !== undefined) identity.gid = group
  return { ok: true, identity }
}

// This host's users and groups, and the gateway's own uid.
export function localIdentitySystem(): IdentitySystem {
  return {
    uid: process.getuid?.() ?? -1,
    passwd: () => readFileSync('/etc/passwd', 'utf8'),
    groups: () => readFileSync('/etc/group', 'utf8'),
  }
}

// A child's secrets from files (`envFiles`: variable → file), read at every spawn so a rotated
// file is picked up by the next child; the value is the file's content without its final line end.
export function readEnvFiles(envFiles: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, path] of Object.entries(envFiles ?? {})) {
    try {
      env[name] = readFileSync(path, 'utf8').replace(/\r?\n$/, '')
    } catch (err) {
      throw new Error(`envFiles.${name}: ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { cause: err })
    }
  }
  return env
}
