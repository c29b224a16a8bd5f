// The language the config schema (schema.ts) is written in, and the TypeScript types derived from
// a schema: each setting is declared once, with its type, default, limits, environment variable
// and a one-line doc; key sets, defaults, the env table and the config types all follow from it.

interface Documented {
  // One line: what the setting means (README "Configuration" says the same at more length).
  readonly doc: string
  // Absent and without a default → left out of the config (not an error).
  readonly optional?: true
}

interface FromEnv {
  // MCP_GATEWAY_<NAME>, listed in .env.example (a test keeps the two in step).
  readonly env?: `MCP_GATEWAY_${string}`
  // Also read from the file named by MCP_GATEWAY_<NAME>_FILE (a mounted secret, so the value
  // never sits in the gateway's environment, where a child could read it from /proc).
  readonly envFile?: true
}

export interface StringSetting extends Documented, FromEnv {
  readonly type: 'string'
  // No default and not optional → required.
  readonly default?: string
  readonly pattern?: RegExp
  // The problem reported when `pattern` does not match; default "must match /…/".
  readonly patternProblem?: string
  readonly oneOf?: readonly string[]
  // A non-empty value needs at least this many UTF-8 bytes ("" keeps its meaning of "not set").
  readonly minBytes?: number
  // Never echoed in error messages.
  readonly secret?: true
}

export interface IntegerSetting extends Documented, FromEnv {
  readonly type: 'integer'
  readonly default?: number
  readonly min?: number
  readonly max?: number
}

export interface BooleanSetting extends Documented, FromEnv {
  readonly type: 'boolean'
  readonly default?: boolean
}

// From the environment: a comma list, blanks dropped.
export interface StringListSetting extends Documented, FromEnv {
  readonly type: 'stringList'
  readonly default?: readonly string[]
  readonly lowerCase?: true
}

// Default {}.
export interface StringMapSetting extends Documented {
  readonly type: 'stringMap'
}

// A nested object: its own settings, unknown keys refused; absent → every default inside.
export interface ObjectSetting extends Documented {
  readonly type: 'object'
  readonly settings: Settings
}

// A list (default []); `check` sees the items read and reports problems across them.
export interface ListSetting extends Documented {
  readonly type: 'list'
  readonly of: Setting
  readonly check?: (items: ReadonlyArray<Record<string, unknown>>, report: (problem: string) => void) => void
}

// One of several objects, chosen by the string at `key` (e.g. a backend's `transport`).
export interface VariantSetting extends Documented {
  readonly type: 'variant'
  readonly key: string
  readonly variants: Readonly<Record<string, Settings>>
}

export type ScalarSetting = StringSetting | IntegerSetting | BooleanSetting | StringListSetting
export type Setting = ScalarSetting | StringMapSetting | ObjectSetting | ListSetting | VariantSetting
export type Settings = Readonly<Record<string, Setting>>

type Simplify<T> = { [K in keyof T]: T[K] } & {}

// The value a setting yields once validated.
export type ValueOf<S> =
  S extends { type: 'string' } ? string
    : S extends { type: 'integer' } ? number
      : S extends { type: 'boolean' } ? boolean
        : S extends { type: 'stringList' } ? string[]
          : S extends { type: 'stringMap' } ? Record<string, string>
            : S extends { type: 'object'; settings: infer P } ? ConfigOf<P>
              : S extends { type: 'list'; of: infer I } ? Array<ValueOf<I>>
                : S extends { type: 'variant'; key: infer K extends string; variants: infer V } ? VariantOf<K, V>
                  : never

type VariantOf<K extends string, V> = { [T in keyof V]: Simplify<{ [_ in K]: T } & ConfigOf<V[T]>> }[keyof V]

type IsOptional<S> = S extends { optional: true } ? (S extends { default: unknown } ? false : true) : false

// The validated config an object of settings yields: optional settings without a default may be absent.
export type ConfigOf<P> = Simplify<
  { [K in keyof P as IsOptional<P[K]> extends true ? never : K]: ValueOf<P[K]> } &
  { [K in keyof P as IsOptional<P[K]> extends true ? K : never]?: ValueOf<P[K]> }
>
