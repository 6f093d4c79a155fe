import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { MODULES_DIR } from '../package-root.js'
import { sql, type Kysely } from 'kysely'
import type { CompatibilityResult } from '../compatibility/index.js'
import type { VerdictTables } from './compatibility-verdicts.table.js'

/** Verdicts kept in the store at most; past it, the oldest are deleted. */
export const MAX_KEPT_VERDICTS = 100_000
/** Deletes past {@link MAX_KEPT_VERDICTS} run once per this many verdicts kept. */
const PRUNE_EVERY = 1_000

/** Where compatibility verdicts are kept across restarts and shared by the instances of one database. */
export interface VerdictStore {
  find(key: string): Promise<CompatibilityResult | null>
  keep(key: string, result: CompatibilityResult): Promise<void>
}

/**
 * What a kept verdict depends on besides the two schemas: the code of the engine and of the
 * shared validator (this build's `compatibility/` and `iglu/` modules), and Ajv's version. Any
 * change of either makes every kept verdict unreadable, so none outlives the code that made it.
 */
export function engineFingerprint(): string {
  const hash = createHash('sha256')
  for (const folder of ['compatibility', 'iglu']) {
    const dir = path.join(MODULES_DIR, folder)
    for (const file of readdirSync(dir).sort()) {
      if (!/\.(js|ts)$/.test(file) || /\.test\.|\.d\.ts$/.test(file)) continue
      hash.update(file).update(readFileSync(path.join(dir, file)))
    }
  }
  const ajvPackage = createRequire(import.meta.url)('ajv/package.json') as { version: string }
  return hash.update(`ajv ${ajvPackage.version}`).digest('base64url')
}

/** Kept verdicts in the `compatibility_verdicts` table, at most {@link MAX_KEPT_VERDICTS}. */
export function createVerdictStore(db: Kysely<VerdictTables>): VerdictStore {
  let keptSincePrune = 0
  return {
    async find(key) {
      const row = await db
        .selectFrom('compatibility_verdicts')
        .select('result')
        .where('key', '=', key)
        .executeTakeFirst()
      return row?.result ?? null
    },
    async keep(key, result) {
      await db
        .insertInto('compatibility_verdicts')
        .values({ key, result: JSON.stringify(result) })
        .onConflict((oc) => oc.column('key').doNothing())
        .execute()
      if (++keptSincePrune < PRUNE_EVERY) return
      keptSincePrune = 0
      await sql`delete from compatibility_verdicts where computed_at < (select computed_at from compatibility_verdicts order by computed_at desc offset ${MAX_KEPT_VERDICTS - 1} limit 1)`.execute(
        db,
      )
    },
  }
}
