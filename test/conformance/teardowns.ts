/** A LIFO list of cleanup steps, shaped like tap's `t.teardown` so test helpers work outside tap. */
export interface Teardowns {
  teardown(fn: () => void | Promise<void>): void
  /** Runs every step once, newest first; a failing step is reported and the rest still run. */
  runAll(): Promise<void>
}

export function createTeardowns(): Teardowns {
  const steps: Array<() => void | Promise<void>> = []
  return {
    teardown: (fn) => {
      steps.push(fn)
    },
    runAll: async () => {
      for (let step = steps.pop(); step !== undefined; step = steps.pop()) {
        try {
          await step()
        } catch (err) {
          process.stderr.write(`teardown failed: ${String(err)}\n`)
        }
      }
    },
  }
}
