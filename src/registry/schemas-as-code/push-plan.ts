import { compareSchemaVer, formatSchemaVer, type SchemaKey } from '../../iglu/index.js'

/** A schema of the directory, ready to send: its key, its text as it will be stored, and that text's hash. */
export interface LocalSchema {
  readonly path: string
  readonly key: SchemaKey
  /** The file's text without surrounding white space: what the registry will keep, byte for byte. */
  readonly payload: string
  readonly contentHash: string
}

/** What a registry holds: per `vendor/name/format/version`, the content hash in each environment. */
export type RemoteContent = ReadonlyMap<string, { DEV?: string; PROD?: string }>

export type PushStep =
  | { readonly kind: 'skip'; readonly schema: LocalSchema; readonly why: string }
  | { readonly kind: 'deploy-dev'; readonly schema: LocalSchema; readonly patch: boolean }
  | { readonly kind: 'deploy-prod'; readonly schema: LocalSchema }
  | { readonly kind: 'refuse'; readonly schema: LocalSchema; readonly why: string }

export const versionKey = (key: SchemaKey) =>
  `${key.vendor}/${key.name}/${key.format}/${formatSchemaVer(key.version)}`
const groupOf = (key: SchemaKey) => `${key.vendor}/${key.name}/${key.format}`

/** The schemas (`vendor/name/format`) a schema's `$ref`s name by Iglu URI. */
function referencedGroups(payload: string): string[] {
  return [...payload.matchAll(/"\$ref"\s*:\s*"iglu:([^/"]+)\/([^/"]+)\/([^/"]+)\//g)].map(
    (m) => `${m[1]}/${m[2]}/${m[3]}`,
  )
}

/**
 * The order to publish in: a schema after the schemas its `$ref`s name (when the directory holds
 * them), each schema's versions lowest first; otherwise by name. A cycle of references is broken
 * where the walk meets it.
 */
export function publishOrder(schemas: readonly LocalSchema[]): LocalSchema[] {
  const groups = new Map<string, LocalSchema[]>()
  for (const schema of [...schemas].sort((a, b) =>
    compareSchemaVer(a.key.version, b.key.version),
  )) {
    const group = groups.get(groupOf(schema.key))
    if (group === undefined) groups.set(groupOf(schema.key), [schema])
    else group.push(schema)
  }
  const ordered: LocalSchema[] = []
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (group: string) => {
    if (state.has(group)) return
    state.set(group, 'visiting')
    for (const member of groups.get(group) ?? [])
      for (const needed of referencedGroups(member.payload))
        if (needed !== group && groups.has(needed) && state.get(needed) !== 'visiting')
          visit(needed)
    state.set(group, 'done')
    ordered.push(...(groups.get(group) ?? []))
  }
  for (const group of [...groups.keys()].sort()) visit(group)
  return ordered
}

/**
 * The steps that bring `env` to the directory's content, in publishing order: what is already
 * there with the same content is skipped; PROD gets a version through DEV; a version whose content
 * differs from DEV's is patched only when asked, and PROD's is never replaced.
 */
export function planPush(
  schemas: readonly LocalSchema[],
  remote: RemoteContent,
  options: { readonly env: 'DEV' | 'PROD'; readonly patch: boolean },
): PushStep[] {
  const steps: PushStep[] = []
  for (const schema of publishOrder(schemas)) {
    const there = remote.get(versionKey(schema.key)) ?? {}
    const uri = `iglu:${versionKey(schema.key)}`
    if (options.env === 'PROD' && there.PROD !== undefined) {
      steps.push(
        there.PROD === schema.contentHash
          ? { kind: 'skip', schema, why: `${uri} is in PROD with this content` }
          : {
              kind: 'refuse',
              schema,
              why: `${uri} is in PROD with other content, and PROD versions never change`,
            },
      )
      continue
    }
    if (there.DEV === undefined) steps.push({ kind: 'deploy-dev', schema, patch: false })
    else if (there.DEV !== schema.contentHash) {
      if (there.PROD !== undefined) {
        steps.push({
          kind: 'refuse',
          schema,
          why: `${uri} is in PROD with other content, and PROD versions never change: bump the version`,
        })
        continue
      }
      if (!options.patch) {
        steps.push({
          kind: 'refuse',
          schema,
          why: `${uri} is in DEV with other content: --patch replaces it there`,
        })
        continue
      }
      steps.push({ kind: 'deploy-dev', schema, patch: true })
    } else if (options.env === 'DEV')
      steps.push({ kind: 'skip', schema, why: `${uri} is in DEV with this content` })
    if (options.env === 'PROD') steps.push({ kind: 'deploy-prod', schema })
  }
  return steps
}
