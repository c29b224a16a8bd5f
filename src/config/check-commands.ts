// Start-up check that every stdio backend's `command` can be run (and, below, that its user, group
// and env files resolve): found and executable, looked up
// the way child_process.spawn will look it up (the backend's own `env.PATH`, else /usr/bin:/bin,
// since the child's environment is exactly the configured one). Reads the file system only.
import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, isAbsolute, join, resolve } from 'node:path'
import type { GatewayConfig } from './types.ts'
import { localIdentitySystem, resolveChildIdentity, type IdentitySystem } from '../upstream/stdio/child-identity.ts'

// Node's own search path when the given environment has no PATH (child_process docs).
const SPAWN_DEFAULT_PATH = '/usr/bin:/bin'

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return statSync(path).isFile()
  } catch {
    return false
  }
}

function exists(path: string): boolean {
  try {
    statSync(path)
    return true
  } catch {
    return false
  }
}

// The problem with one command, or undefined when it can be run.
export function describeCommandProblem(command: string, options: { env: Record<string, string>; cwd?: string }): string | undefined {
  if (command === '') return 'must not be empty'
  if (command.includes('/')) {
    const path = isAbsolute(command) ? command : resolve(options.cwd ?? process.cwd(), command)
    if (isExecutableFile(path)) return undefined
    return exists(path) ? `"${command}" is not an executable file` : `"${command}" does not exist`
  }
  const searchPath = options.env.PATH ?? SPAWN_DEFAULT_PATH
  for (const dir of searchPath.split(delimiter)) if (dir !== '' && isExecutableFile(join(dir, command))) return undefined
  return `"${command}" is not found on PATH (${searchPath}); give an absolute path or set env.PATH for this backend`
}

export function findCommandProblems(config: GatewayConfig, system: IdentitySystem = localIdentitySystem()): string[] {
  const problems: string[] = []
  config.backends.forEach((backend, i) => {
    if (backend.transport !== 'stdio') return
    const problem = describeCommandProblem(backend.command, { env: backend.env, cwd: backend.cwd })
    if (problem !== undefined) problems.push(`backends[${i}].command: ${problem}`)
    // The child's user and group, and its env files, as its spawn will resolve them.
    const identity = resolveChildIdentity(backend, system)
    if (!identity.ok) problems.push(`backends[${i}]: ${identity.problem}`)
    for (const [name, path] of Object.entries(backend.envFiles)) {
      if (!isReadableFile(path)) problems.push(`backends[${i}].envFiles.${name}: ${path} cannot be read`)
    }
  })
  return problems
}

function isReadableFile(path: string): boolean {
  try {
    accessSync(path, constants.R_OK)
    return statSync(path).isFile()
  } catch {
    return false
  }
}
