import type { Kysely } from 'kysely'
import type { RegistryTables } from './registry.table.js'
import type { Env, SchemaVersion } from './registry-records.js'
import { readSchemaTexts, withSchemaParsedOnRead, type VersionSlot } from './schema-texts.js'

/** A version as `versionSlotsOf` lists it: where its schema is, not yet read. */
export interface StoredVersionSlot extends VersionSlot {
  readonly contentHash: string
  readonly patchLevel: number
}

/** A version with its schema's text (none: it was removed since it was listed). */
function versionWithText(slot: StoredVersionSlot, text: string | undefined): SchemaVersion[] {
  if (text === undefined) return []
  const { env, version, contentHash, patchLevel } = slot
  return [withSchemaParsedOnRead({ env, version, text, contentHash, patchLevel })]
}

/** Reads of data structures' versions: listed without their schemas, then read a page at a time. */
export function createVersionReads(db: Kysely<RegistryTables>) {
  /** The versions of these data structures, by hash, without their schemas: one query. */
  async function versionSlotsOf(
    hashes: readonly string[],
    env?: Env,
  ): Promise<Map<string, StoredVersionSlot[]>> {
    const byHash = new Map<string, StoredVersionSlot[]>()
    if (hashes.length === 0) return byHash
    let query = db
      .selectFrom('schema_versions')
      .select([
        'data_structure_hash',
        'env',
        'version',
        'content_hash',
        'patch_level',
        'schema_bytes',
      ])
      .where('data_structure_hash', 'in', hashes)
    if (env !== undefined) query = query.where('env', '=', env)
    for (const r of await query.execute()) {
      let slots = byHash.get(r.data_structure_hash)
      if (slots === undefined) byHash.set(r.data_structure_hash, (slots = []))
      slots.push({
        hash: r.data_structure_hash,
        env: r.env,
        version: r.version,
        bytes: r.schema_bytes,
        contentHash: r.content_hash,
        patchLevel: r.patch_level,
      })
    }
    return byHash
  }

  /** These versions with their schemas, read a page at a time; one removed since is left out. */
  async function withSchemas(slots: readonly StoredVersionSlot[]): Promise<SchemaVersion[]> {
    const textOf = await readSchemaTexts(db, slots)
    return slots.flatMap((slot) => versionWithText(slot, textOf(slot)))
  }

  /** The versions of these data structures, by hash, with their schemas. */
  async function versionsOf(
    hashes: readonly string[],
    env?: Env,
  ): Promise<Map<string, SchemaVersion[]>> {
    const slots = await versionSlotsOf(hashes, env)
    const textOf = await readSchemaTexts(db, [...slots.values()].flat())
    const byHash = new Map<string, SchemaVersion[]>()
    for (const [hash, ofHash] of slots)
      byHash.set(
        hash,
        ofHash.flatMap((slot) => versionWithText(slot, textOf(slot))),
      )
    return byHash
  }

  return { versionsOf, versionSlotsOf, withSchemas }
}
