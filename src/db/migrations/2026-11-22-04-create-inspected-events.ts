import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // Events of the inspection service with --storage postgres, shared by every instance on this database.
  await db.schema
    .createTable('inspected_events')
    // Arrival order across instances: reads are newest first by seq.
    .addColumn('seq', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('good', 'bad', 'incomplete')`))
    // The writing instance's clock: the TTL cleanup deletes by it.
    .addColumn('stored_at', 'timestamptz', (c) => c.notNull())
    // Good and incomplete events: the events query's time range and the timeline select by it.
    .addColumn('collector_tstamp', 'timestamptz')
    // Good events: what POST good filters on (escaped so that any string can be stored and compared).
    .addColumn('event_type', 'text')
    .addColumn('schema', 'text')
    .addColumn('contexts', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    // Bad events: the collector payload's api, what POST bad filters on; null without a payload.
    .addColumn('api_vendor', 'text')
    .addColumn('api_version', 'text')
    // The event's JSON text as the API answers it (not jsonb, which would reorder keys).
    .addColumn('body', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('inspected_events_kind_idx')
    .on('inspected_events')
    .columns(['kind', 'seq'])
    .execute()
  await db.schema
    .createIndex('inspected_events_event_type_idx')
    .on('inspected_events')
    .columns(['event_type', 'seq'])
    .execute()
  await db.schema
    .createIndex('inspected_events_schema_idx')
    .on('inspected_events')
    .columns(['schema', 'seq'])
    .execute()
  await db.schema
    .createIndex('inspected_events_contexts_idx')
    .on('inspected_events')
    .using('gin')
    .column('contexts')
    .execute()
  await db.schema
    .createIndex('inspected_events_collector_tstamp_idx')
    .on('inspected_events')
    .column('collector_tstamp')
    .execute()
  await db.schema
    .createIndex('inspected_events_stored_at_idx')
    .on('inspected_events')
    .column('stored_at')
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('inspected_events').execute()
}
