import type { QueryArrayConfig } from 'pg'
import { numberFromText } from '../../iglu/index.js'
import type { BoundValue, QueryRows } from '../pipeline/enrichments/sql-query.js'

/**
 * The database of a SQL query enrichment: a small PostgreSQL pool per configuration, whose
 * columns come back as Enrich's JDBC reading gives them (integers and floating numbers as
 * numbers (a `bigint` or `numeric` that a double rounds as its digits: RoundedNumberText), unknown
 * types as JSON when their text is JSON, dates as ISO instants at
 * midnight UTC, timestamps as Java prints them), with a time budget for each query.
 */

export interface SqlDatabaseSettings {
  readonly host: string
  readonly port: number
  readonly sslMode: boolean
  readonly username: string
  readonly password: string
  readonly database: string
}

export interface SqlDatabase {
  query(sql: string, values: readonly BoundValue[]): Promise<QueryRows>
  close(): Promise<void>
}

/** The most rows one lookup reads: past it the connection is closed and the event fails. */
export const MAX_ROWS = 1000

const TEXT_TYPES = new Set([18, 19, 25, 1042, 1043])
const asNumber = (text: string) => Number(text)
const asFloat = (text: string) => {
  const value = Number(text)
  return Number.isFinite(value) ? value : null
}
const asJsonOrText = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}
/** `java.sql.Timestamp#toString`: the fraction without its trailing zeros, at least one digit. */
const javaTimestamp = (text: string) => {
  const match = /^(\d{4,}-\d\d-\d\d \d\d:\d\d:\d\d)(?:\.(\d+))?(?:[+-]\d\d(?::?\d\d)*)?$/.exec(text)
  if (match === null) return text
  return `${match[1]}.${(match[2] ?? '0').replace(/(?<=\d)0+$/, '')}`
}

/** How each PostgreSQL type's text becomes JSON (the wire format is text). */
function parserFor(oid: number): (text: string) => unknown {
  switch (oid) {
    case 16:
      return (text) => text === 't'
    case 20:
      // A bigint past a double's precision keeps its digits, as JDBC's getLong does.
      return numberFromText
    case 1700:
      // numeric: its digits (BigDecimal over JDBC); `NaN` and `Infinity` stay text.
      return (text) => (/^-?\d/.test(text) ? numberFromText(text) : asJsonOrText(text))
    case 21:
    case 23:
    case 26:
      return asNumber
    case 700:
      return (text) => {
        const value = asFloat(text)
        return value === null ? null : Math.fround(value)
      }
    case 701:
      return asFloat
    case 1082:
      return (text) => (/^\d{4}-\d\d-\d\d$/.test(text) ? `${text}T00:00:00.000Z` : text)
    case 1114:
    case 1184:
      return javaTimestamp
    default:
      return TEXT_TYPES.has(oid) ? (text) => text : asJsonOrText
  }
}

export async function openSqlDatabase(
  settings: SqlDatabaseSettings,
  timeoutMs: number,
): Promise<SqlDatabase> {
  const { default: pg } = await import('pg')
  const pool = new pg.Pool({
    host: settings.host,
    port: settings.port,
    user: settings.username,
    password: settings.password,
    database: settings.database,
    // sslMode: encrypted, the certificate not checked (as Enrich's NonValidatingFactory).
    ssl: settings.sslMode ? { rejectUnauthorized: false } : false,
    max: 2,
    connectionTimeoutMillis: timeoutMs,
    // The server cancels a query past its budget; each lookup gives up a second later, on a server
    // that does not answer at all (pg's own query_timeout would turn the query's events off).
    statement_timeout: timeoutMs,
    application_name: 'floe sql_query_enrichment',
    // Timestamps with a zone are read in UTC, as Enrich's JVM reads them.
    options: '-c TimeZone=UTC',
    types: { getTypeParser: ((oid: number) => parserFor(oid)) as never },
  })
  // An idle connection that drops must not crash the process; the next lookup reconnects.
  pool.on('error', () => undefined)
  // Nor one checked out when it drops: the pool listens to its clients only while they are idle.
  pool.on('connect', (client) => client.on('error', () => undefined))
  return {
    query: async (sql, values) => {
      const client = await pool.connect()
      return new Promise<QueryRows>((resolve, reject) => {
        const rows: unknown[][] = []
        let columns: string[] = []
        let settled = false
        /** `discard`: the connection is closed rather than reused (a server still sending, or silent). */
        const settle = (error: Error | null, discard = false) => {
          if (settled) return
          settled = true
          clearTimeout(deadline)
          client.release(discard ? (error ?? true) : undefined)
          if (error === null) resolve({ columns, rows })
          else reject(error)
        }
        const deadline = setTimeout(
          () => settle(new Error(`no answer from PostgreSQL within ${timeoutMs + 1000} ms`), true),
          timeoutMs + 1000,
        )
        // The types say no rowMode for a Query; pg reads it all the same.
        const config: QueryArrayConfig = {
          text: sql,
          values: values.map((v) => v.value),
          rowMode: 'array',
        }
        const query = client.query(new pg.Query(config))
        query.on('row', (row: unknown[], result?: { fields: { name: string }[] }) => {
          if (settled) return
          if (rows.length === 0) columns = (result?.fields ?? []).map((f) => f.name)
          rows.push(row)
          // Enough: closing the connection stops the server sending the rest.
          if (rows.length > MAX_ROWS)
            settle(new Error(`the query returned more than ${MAX_ROWS} rows`), true)
        })
        query.on('end', (result: { fields?: { name: string }[] }) => {
          if (rows.length === 0) columns = (result.fields ?? []).map((f) => f.name)
          settle(null)
        })
        query.on('error', (error: Error) => settle(error))
      })
    },
    close: () => pool.end(),
  }
}
