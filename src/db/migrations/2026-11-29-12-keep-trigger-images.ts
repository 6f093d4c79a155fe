import type { Kysely } from 'kysely'

// Migrations take Kysely<any> so they stay frozen in time, whatever the app's types become.
export async function up(db: Kysely<any>): Promise<void> {
  // The images of event specification triggers, as snowplow-cli uploads them: a link is asked for
  // (a row with the hash of its one-time token), the image sent to it, then confirmed by its hash.
  await db.schema
    .createTable('trigger_images')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('upload_token_sha256', 'text')
    .addColumn('upload_expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('content_type', 'text')
    .addColumn('byte_length', 'integer')
    .addColumn('sha256', 'text')
    .addColumn('confirmed_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('trigger_images_organization')
    .on('trigger_images')
    .columns(['organization_id', 'created_at'])
    .execute()
  // An image's bytes in parts (of 256 KiB), as base64 text: PGlite writes a MiB of text in ~14 ms
  // and of bytea in ~175 ms (its hex conversion), each a pause of the event loop.
  await db.schema
    .createTable('trigger_image_parts')
    .addColumn('image_id', 'uuid', (c) =>
      c.notNull().references('trigger_images.id').onDelete('cascade'),
    )
    .addColumn('part', 'integer', (c) => c.notNull())
    .addColumn('data_base64', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('trigger_image_parts_pkey', ['image_id', 'part'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('trigger_image_parts').execute()
  await db.schema.dropTable('trigger_images').execute()
}
