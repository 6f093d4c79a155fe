import { sql, type Kysely } from 'kysely'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { isUuid } from '../shared/index.js'
import type { TrackingPlanTables } from './tracking-plan.tables.js'

/** A trigger image as stored, without its bytes. */
export interface StoredTriggerImage {
  readonly id: string
  readonly uploadTokenSha256: string | null
  readonly uploadExpiresAt: Date
  readonly contentType: string | null
  readonly byteLength: number | null
  readonly sha256: string | null
  readonly confirmedAt: Date | null
}

/** An upload's bytes and what was read of them. */
export interface ReadUpload {
  readonly contentType: string
  readonly byteLength: number
  readonly sha256: string
  /** The bytes in parts, each base64 text. */
  readonly parts: readonly string[]
}

/** What became of an upload: kept, or why not (the link was used or expired meanwhile). */
export type UploadOutcome = 'saved' | 'gone' | 'used' | 'expired'

/** Trigger images and their bytes, per organization. */
export function createTriggerImagesStore(db: Kysely<TrackingPlanTables>) {
  return {
    /** Forgets the images never confirmed whose link expired before `before`, with their bytes. */
    async forgetUnconfirmed(organizationId: string, before: Date): Promise<void> {
      await db
        .deleteFrom('trigger_images')
        .where('organization_id', '=', organizationId)
        .where('confirmed_at', 'is', null)
        .where('upload_expires_at', '<', before)
        .execute()
    },

    /**
     * Adds a link unless the organization already has `max` open ones: counted and added in one
     * transaction that holds the organization's link lock, so that requests at once (on any
     * instance sharing the database) cannot each count room for themselves. Whether it was added.
     */
    async addLinkIfRoom(
      link: {
        id: string
        organizationId: string
        tokenSha256: string
        expiresAt: Date
        createdAt: Date
      },
      max: number,
    ): Promise<boolean> {
      return db.transaction().execute(async (tx) => {
        await sql`select pg_advisory_xact_lock(hashtextextended(${`upload-links:${link.organizationId}`}, 0))`.execute(
          tx,
        )
        const open = await tx
          .selectFrom('trigger_images')
          .select((eb) => eb.fn.countAll<string>().as('count'))
          .where('organization_id', '=', link.organizationId)
          .where('upload_token_sha256', 'is not', null)
          .where('upload_expires_at', '>', link.createdAt)
          .executeTakeFirstOrThrow()
        if (Number(open.count) >= max) return false
        await tx
          .insertInto('trigger_images')
          .values({
            id: link.id,
            organization_id: link.organizationId,
            upload_token_sha256: link.tokenSha256,
            upload_expires_at: link.expiresAt,
            created_at: link.createdAt,
          })
          .execute()
        return true
      })
    },

    async find(organizationId: string, id: string): Promise<StoredTriggerImage | null> {
      if (!isUuid(id)) return null
      const row = await db
        .selectFrom('trigger_images')
        .select([
          'id',
          'upload_token_sha256',
          'upload_expires_at',
          'content_type',
          'byte_length',
          'sha256',
          'confirmed_at',
        ])
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst()
      if (row === undefined) return null
      return {
        id: row.id,
        uploadTokenSha256: row.upload_token_sha256,
        uploadExpiresAt: new Date(row.upload_expires_at),
        contentType: row.content_type,
        byteLength: row.byte_length,
        sha256: row.sha256,
        confirmedAt: row.confirmed_at === null ? null : new Date(row.confirmed_at),
      }
    },

    /**
     * Keeps an upload's bytes, in one transaction with the link's use: the link, locked, must still
     * carry `tokenSha256` and not have expired at `now`.
     */
    async saveUpload(
      organizationId: string,
      id: string,
      tokenSha256: string,
      now: Date,
      upload: ReadUpload,
    ): Promise<UploadOutcome> {
      return db.transaction().execute(async (tx) => {
        const row = await tx
          .selectFrom('trigger_images')
          .select(['upload_token_sha256', 'upload_expires_at'])
          .where('organization_id', '=', organizationId)
          .where('id', '=', id)
          .forUpdate()
          .executeTakeFirst()
        if (row === undefined) return 'gone'
        if (row.upload_token_sha256 !== tokenSha256) return 'used'
        if (new Date(row.upload_expires_at).getTime() <= now.getTime()) return 'expired'
        // One part a statement, each after a turn of the event loop: PGlite answers a statement
        // without one (its promises settle at once), so ten parts written in a row held the loop
        // for the whole ~0.4 s.
        for (const [part, data] of upload.parts.entries()) {
          await nextTurn()
          await tx
            .insertInto('trigger_image_parts')
            .values({ image_id: id, part, data_base64: data })
            .execute()
        }
        await tx
          .updateTable('trigger_images')
          .set({
            upload_token_sha256: null,
            content_type: upload.contentType,
            byte_length: upload.byteLength,
            sha256: upload.sha256,
          })
          .where('id', '=', id)
          .execute()
        return 'saved'
      })
    },

    async confirm(organizationId: string, id: string, now: Date): Promise<void> {
      await db
        .updateTable('trigger_images')
        .set((eb) => ({ confirmed_at: eb.fn.coalesce('confirmed_at', eb.val(now)) }))
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .execute()
    },

    /** The confirmed images, oldest first. */
    async listConfirmed(organizationId: string): Promise<{ id: string; sha256: string }[]> {
      const rows = await db
        .selectFrom('trigger_images')
        .select(['id', 'sha256'])
        .where('organization_id', '=', organizationId)
        .where('confirmed_at', 'is not', null)
        .orderBy('created_at')
        .orderBy('id')
        .execute()
      return rows.map((row) => ({ id: row.id, sha256: row.sha256 ?? '' }))
    },

    /** An image's bytes, part after part (base64 text each), a turn of the event loop between. */
    async *parts(id: string): AsyncGenerator<string> {
      for (let part = 0; ; part++) {
        if (part > 0) await nextTurn()
        const row = await db
          .selectFrom('trigger_image_parts')
          .select('data_base64')
          .where('image_id', '=', id)
          .where('part', '=', part)
          .executeTakeFirst()
        if (row === undefined) return
        yield row.data_base64
      }
    },
  }
}

export type TriggerImagesStore = ReturnType<typeof createTriggerImagesStore>
