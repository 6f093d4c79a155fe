import { RoundedNumberText } from '../../../iglu/index.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { exactJsonText, keepsWrittenNumbers, numberFromText } from '../../../iglu/index.js'
import { type SelfDescribing } from '../canonical-event.js'
import {
  boundJsonValue,
  numberPlaceholders,
  propertyName,
  rowEntities,
  type BoundValue,
  type ExpectedRows,
  type PropertyNames,
  type QueryRows,
  type SqlQueryConfig,
} from './sql-query.js'

const SEED = 20261203
const SCHEMA_KEY =
  'iglu:com.snowplowanalytics.snowplow.enrichments/sql_query_enrichment_config/jsonschema/1-0-1'
const OUTPUT = 'iglu:com.acme/user_row/jsonschema/1-0-0'

describe('numbering the placeholders', () => {
  it.each([
    ['select * from t where a = ? and b = ?', 'select * from t where a = $1 and b = $2', 2],
    ["select '?', ?", "select '?', $1", 1],
    ["select 'it''s ?', ?", "select 'it''s ?', $1", 1],
    ['select "we?rd" from t where x = ?', 'select "we?rd" from t where x = $1', 1],
    ['select ? -- is it?\n, ?', 'select $1 -- is it?\n, $2', 2],
    ['select /* ? */ ?', 'select /* ? */ $1', 1],
    ['select $$ ? $$, ?', 'select $$ ? $$, $1', 1],
    ['select $tag$ ? $$ ? $tag$, ?', 'select $tag$ ? $$ ? $tag$, $1', 1],
    ['select $tag1$ ? $tag1$, ?', 'select $tag1$ ? $tag1$, $1', 1],
    ["select data ?? 'key' from t where id = ?", "select data ? 'key' from t where id = $1", 1],
    ['select ???', 'select ?$1', 1],
    ["select 'open ?", "select 'open ?", 0],
    ['select 1', 'select 1', 0],
  ])('%j → %j (%i)', (sql, text, count) => {
    expect(numberPlaceholders(sql)).toEqual({ text, count })
  })

  it(`numbers each lone ? in plain text, in order (seed ${SEED})`, () => {
    // Pieces are never empty: `??` would be the escape of a literal `?`.
    const plain = fc.stringMatching(/^[a-z0-9 =,()<>*.]{1,12}$/)
    fc.assert(
      fc.property(fc.array(plain, { minLength: 1, maxLength: 8 }), (pieces) => {
        const numbered = pieces.map((p, at) => (at === 0 ? p : `$${at}${p}`)).join('')
        expect(numberPlaceholders(pieces.join('?'))).toEqual({
          text: numbered,
          count: pieces.length - 1,
        })
      }),
      { seed: SEED, numRuns: 300 },
    )
  })
})

describe('binding a value found in an entity', () => {
  it.each<[unknown, BoundValue | null]>([
    [5, { type: 'int', value: 5 }],
    [-(2 ** 31), { type: 'int', value: -(2 ** 31) }],
    [2 ** 31, { type: 'long', value: 2 ** 31 }],
    [2 ** 53, { type: 'long', value: 2 ** 53 }],
    [1e20, { type: 'double', value: 1e20 }],
    [1.5, { type: 'double', value: 1.5 }],
    [true, { type: 'boolean', value: true }],
    ['123', { type: 'int', value: 123 }],
    ['+7', { type: 'int', value: 7 }],
    ['-2147483649', { type: 'long', value: '-2147483649' }],
    ['9223372036854775807', { type: 'long', value: '9223372036854775807' }],
    ['9223372036854775808', { type: 'double', value: 9223372036854775808 }],
    ['1e3', { type: 'double', value: 1000 }],
    ['2f', { type: 'double', value: 2 }],
    ['2.5D', { type: 'double', value: 2.5 }],
    [' 4.5 ', { type: 'double', value: 4.5 }],
    ['NaN', { type: 'double', value: NaN }],
    ['-Infinity', { type: 'double', value: -Infinity }],
    ['TRUE', { type: 'boolean', value: true }],
    ['False', { type: 'boolean', value: false }],
    ['yes', { type: 'string', value: 'yes' }],
    ['0x10', { type: 'string', value: '0x10' }],
    ['', { type: 'string', value: '' }],
    [null, null],
    [{ id: 1 }, null],
    [[], null],
    [[1], null],
    [new RoundedNumberText('9007199254740993'), { type: 'long', value: '9007199254740993' }],
    [new RoundedNumberText('9223372036854775808'), { type: 'double', value: 2 ** 63 }],
    [new RoundedNumberText('0.10000000000000000555'), { type: 'double', value: 0.1 }],
  ])('%j → %j', (value, bound) => {
    expect(boundJsonValue(value)).toEqual(bound)
  })

  it(`binds any int32, given as a number or as text, as an int (seed ${SEED + 1})`, () => {
    fc.assert(
      fc.property(fc.integer(), (n) => {
        expect(boundJsonValue(n)).toEqual({ type: 'int', value: n })
        expect(boundJsonValue(String(n))).toEqual({ type: 'int', value: n })
      }),
      { seed: SEED + 1, numRuns: 300 },
    )
  })
})

describe('property names', () => {
  it.each<[string, PropertyNames, string]>([
    ['date_of_birth', 'AS_IS', 'date_of_birth'],
    ['date_of_birth', 'CAMEL_CASE', 'dateOfBirth'],
    ['col_1', 'CAMEL_CASE', 'col1'],
    ['_id', 'CAMEL_CASE', 'Id'],
    ['user__name', 'CAMEL_CASE', 'user_Name'],
    ['DATE_OF_BIRTH', 'CAMEL_CASE', 'DATE_OF_BIRTH'],
    ['date_of_birth', 'PASCAL_CASE', 'DateOfBirth'],
    ['id', 'PASCAL_CASE', 'Id'],
    ['dateOfBirth', 'SNAKE_CASE', 'date_of_birth'],
    ['UserName', 'SNAKE_CASE', '_user_name'],
    ['address2', 'SNAKE_CASE', 'address_2'],
    ['user_name', 'SNAKE_CASE', 'user_name'],
    ['Date_Of_Birth', 'LOWER_CASE', 'date_of_birth'],
    ['date_of_birth', 'UPPER_CASE', 'DATE_OF_BIRTH'],
  ])('%s under %s is %s', (column, rule, name) => {
    expect(propertyName(column, rule)).toBe(name)
  })
})

function configWith(
  expectedRows: ExpectedRows,
  describes: SqlQueryConfig['describes'],
): SqlQueryConfig {
  return {
    schemaKey: SCHEMA_KEY,
    inputs: [],
    sql: 'select 1',
    placeholders: 0,
    expectedRows,
    outputSchema: OUTPUT,
    propertyNames: 'CAMEL_CASE',
    describes,
    cache: { size: 0, ttlSeconds: 0 },
    ignoreOnError: false,
  }
}

const ROW_1 = { userId: 1, userName: 'ann' }
const ROW_2 = { userId: 2, userName: null }
const answer = (count: number): QueryRows => ({
  columns: ['user_id', 'user_name'],
  rows: [
    [1, 'ann'],
    [2, undefined],
  ].slice(0, count),
})
const row = (data: unknown): SelfDescribing => ({ schema: OUTPUT, data })
const EXACTLY = 'SQL Query Enrichment: exactly one row was expected'
const AT_MOST = 'SQL Query Enrichment: at most one row was expected'
const AT_LEAST = 'SQL Query Enrichment: at least one row was expected. 0 given instead'

describe('the entities of the rows', () => {
  it.each<[ExpectedRows, SqlQueryConfig['describes'], number, SelfDescribing[] | string]>([
    ['EXACTLY_ONE', 'ALL_ROWS', 0, EXACTLY],
    ['EXACTLY_ONE', 'ALL_ROWS', 1, [row(ROW_1)]],
    ['EXACTLY_ONE', 'ALL_ROWS', 2, EXACTLY],
    ['EXACTLY_ONE', 'EVERY_ROW', 0, EXACTLY],
    ['EXACTLY_ONE', 'EVERY_ROW', 1, [row(ROW_1)]],
    ['EXACTLY_ONE', 'EVERY_ROW', 2, EXACTLY],
    ['AT_MOST_ONE', 'ALL_ROWS', 0, []],
    ['AT_MOST_ONE', 'ALL_ROWS', 1, [row(ROW_1)]],
    ['AT_MOST_ONE', 'ALL_ROWS', 2, AT_MOST],
    ['AT_MOST_ONE', 'EVERY_ROW', 0, []],
    ['AT_MOST_ONE', 'EVERY_ROW', 1, [row(ROW_1)]],
    ['AT_MOST_ONE', 'EVERY_ROW', 2, AT_MOST],
    ['AT_LEAST_ONE', 'ALL_ROWS', 0, AT_LEAST],
    ['AT_LEAST_ONE', 'ALL_ROWS', 1, [row([ROW_1])]],
    ['AT_LEAST_ONE', 'ALL_ROWS', 2, [row([ROW_1, ROW_2])]],
    ['AT_LEAST_ONE', 'EVERY_ROW', 0, AT_LEAST],
    ['AT_LEAST_ONE', 'EVERY_ROW', 1, [row(ROW_1)]],
    ['AT_LEAST_ONE', 'EVERY_ROW', 2, [row(ROW_1), row(ROW_2)]],
    ['AT_LEAST_ZERO', 'ALL_ROWS', 0, [row([])]],
    ['AT_LEAST_ZERO', 'ALL_ROWS', 1, [row([ROW_1])]],
    ['AT_LEAST_ZERO', 'ALL_ROWS', 2, [row([ROW_1, ROW_2])]],
    ['AT_LEAST_ZERO', 'EVERY_ROW', 0, []],
    ['AT_LEAST_ZERO', 'EVERY_ROW', 1, [row(ROW_1)]],
    ['AT_LEAST_ZERO', 'EVERY_ROW', 2, [row(ROW_1), row(ROW_2)]],
  ])('%s, %s, %i rows → %j', (expectedRows, describes, count, expected) => {
    expect(rowEntities(configWith(expectedRows, describes), answer(count))).toEqual(
      typeof expected === 'string' ? { ok: false, error: expected } : { ok: true, value: expected },
    )
  })

  it('keeps the digits of a bigint that a double rounds, and marks the entities of such an answer only', () => {
    const rows = (big: string): QueryRows => ({
      columns: ['user_id', 'big'],
      rows: [['u1', numberFromText(big)]],
    })
    const rounded = rowEntities(configWith('EXACTLY_ONE', 'EVERY_ROW'), rows('9007199254740993'))
    if (!rounded.ok) throw new Error(rounded.error)
    const [entity] = rounded.value
    expect(entity?.data).toEqual({ userId: 'u1', big: 9007199254740992 })
    expect(keepsWrittenNumbers(entity)).toBe(true)
    expect(exactJsonText(entity)).toContain('"big":9007199254740993')
    const exact = rowEntities(configWith('EXACTLY_ONE', 'EVERY_ROW'), rows('9007199254740991'))
    if (!exact.ok) throw new Error(exact.error)
    expect(exact.value[0]?.data).toEqual({ userId: 'u1', big: 9007199254740991 })
    expect(keepsWrittenNumbers(exact.value[0])).toBe(false)
  })
})

/** The parameters of a configuration: placeholder 1 from user_id, then from the session's userId. */
