/**
 * The shape of the shared connection as the database module sees it: no tables. Each bounded
 * context declares the tables it owns and views the one connection through them
 * (`db.withTables<RegistryTables>()`), so no context can query another's tables and this module
 * imports no context.
 */
export type NoTables = Record<never, never>
