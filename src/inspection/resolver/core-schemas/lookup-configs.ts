import { EXPECTED_ROWS, PROPERTY_NAMES } from '../../pipeline/enrichments/sql-query.js'
import { closedObject, coreSchema, text, type CoreSchema } from './self-describing.js'

/**
 * The configurations of the lookup enrichments (SQL query, API request), YAUAA and currency
 * conversion, bundled so that an enrichments directory holding them is checked offline too.
 */

const ENRICHMENTS = 'com.snowplowanalytics.snowplow.enrichments'

const enrichmentConfig = (parameters: CoreSchema, required = true): CoreSchema =>
  closedObject(
    { vendor: text(), name: text(), enabled: { type: 'boolean' }, parameters },
    required ? ['name', 'vendor', 'enabled', 'parameters'] : ['vendor', 'name', 'enabled'],
  )
const integer = (minimum: number, maximum?: number): CoreSchema => ({
  type: 'integer',
  minimum,
  ...(maximum === undefined ? {} : { maximum }),
})
/** Exactly two of the properties: the key (placeholder or key) and one of pojo and json. */
const exactlyTwo = (properties: Record<string, CoreSchema>, required: string): CoreSchema => ({
  ...closedObject(properties, [required]),
  minProperties: 2,
  maxProperties: 2,
})
const ENTITY_FIELD = { type: 'string', enum: ['unstruct_event', 'contexts', 'derived_contexts'] }
const VERSION_OR_ANY = '([1-9][0-9]*|\\*)-((?:0|[1-9][0-9]*)|\\*)-((?:0|[1-9][0-9]*)|\\*)$'
const SQL_CRITERION = `^iglu:([a-zA-Z0-9-_.]+)/([a-zA-Z0-9-_]+)/([a-zA-Z0-9-_]+)/${VERSION_OR_ANY}`
const API_CRITERION = `^iglu:[a-zA-Z0-9-_.]+/[a-zA-Z0-9-_]+/[a-zA-Z0-9-_]+/${VERSION_OR_ANY}`
const OUTPUT_SCHEMA =
  '^iglu:([a-zA-Z0-9-_.]+)/([a-zA-Z0-9-_]+)/([a-zA-Z0-9-_]+)/([1-9][0-9]*(?:-(?:0|[1-9][0-9]*)){2})$'
const JSON_PATH = text({ pattern: '^\\$.*$' })
const cache = (minimumSize: number) =>
  closedObject({ size: integer(minimumSize), ttl: integer(0, 86400) }, ['size', 'ttl'])
const IGNORE_ON_ERROR = { type: ['boolean', 'null'] }

const connection = closedObject(
  {
    host: text(),
    port: integer(1, 65535),
    sslMode: { type: 'boolean' },
    username: text({ minLength: 1 }),
    password: text(),
    database: text({ minLength: 1 }),
  },
  ['host', 'port', 'sslMode', 'username', 'password', 'database'],
)

const sqlQueryConfig = (version: '1-0-0' | '1-0-1') =>
  coreSchema(
    ENRICHMENTS,
    'sql_query_enrichment_config',
    version,
    'The SQL query enrichment: placeholders from the event, a database, a query and its rows as entities',
    enrichmentConfig(
      closedObject(
        {
          inputs: {
            type: 'array',
            items: exactlyTwo(
              {
                placeholder: integer(1, 64),
                pojo: closedObject({ field: text() }, ['field']),
                json: closedObject(
                  {
                    field: ENTITY_FIELD,
                    schemaCriterion: text({ pattern: SQL_CRITERION }),
                    jsonPath: text(),
                  },
                  ['field', 'schemaCriterion', 'jsonPath'],
                ),
              },
              'placeholder',
            ),
          },
          database: {
            oneOf: [
              closedObject({ postgresql: connection }, ['postgresql']),
              { type: 'object', properties: { mysql: connection }, required: ['mysql'] },
            ],
            additionalProperties: true,
          },
          query: closedObject({ sql: text() }, ['sql']),
          output: closedObject(
            {
              expectedRows: { type: 'string', enum: [...EXPECTED_ROWS] },
              json: closedObject(
                {
                  schema: text({ pattern: OUTPUT_SCHEMA }),
                  propertyNames: { type: 'string', enum: [...PROPERTY_NAMES] },
                  describes: { type: 'string', enum: ['ALL_ROWS', 'EVERY_ROW'] },
                },
                ['schema', 'propertyNames', 'describes'],
              ),
            },
            [],
          ),
          cache: cache(0),
          ...(version === '1-0-1' ? { ignoreOnError: IGNORE_ON_ERROR } : {}),
        },
        ['inputs', 'database', 'query', 'output', 'cache'],
      ),
    ),
  )

const apiRequestConfig = (version: '1-0-0' | '1-0-1' | '1-0-2') =>
  coreSchema(
    ENRICHMENTS,
    'api_request_enrichment_config',
    version,
    'The API request enrichment: inputs from the event, an HTTP API, and entities picked from its answer',
    enrichmentConfig(
      closedObject(
        {
          inputs: {
            type: 'array',
            items: exactlyTwo(
              {
                key: text({ pattern: '^[A-Za-z0-9_-]+$' }),
                pojo: closedObject({ field: text() }, []),
                json: closedObject(
                  {
                    field: ENTITY_FIELD,
                    schemaCriterion: text({ pattern: API_CRITERION }),
                    jsonPath: JSON_PATH,
                  },
                  [],
                ),
              },
              'key',
            ),
          },
          api: {
            ...closedObject(
              {
                http: closedObject(
                  {
                    method: { type: 'string', enum: ['GET', 'POST', 'PUT'] },
                    uri: text(),
                    timeout: integer(1, 60000),
                    authentication: closedObject(
                      {
                        httpBasic: closedObject({ username: text(), password: text() }, [
                          'username',
                          'password',
                        ]),
                      },
                      [],
                    ),
                  },
                  ['method', 'uri', 'timeout', 'authentication'],
                ),
              },
              [],
            ),
            minProperties: 1,
            maxProperties: 1,
          },
          outputs: {
            type: 'array',
            minItems: 1,
            items: {
              ...closedObject(
                {
                  schema: text({ pattern: OUTPUT_SCHEMA }),
                  json: closedObject({ jsonPath: JSON_PATH }, ['jsonPath']),
                },
                ['schema'],
              ),
              minProperties: 2,
              maxProperties: 2,
            },
          },
          cache: cache(version === '1-0-0' ? 1 : 0),
          ...(version === '1-0-2' ? { ignoreOnError: IGNORE_ON_ERROR } : {}),
        },
        ['inputs', 'api', 'outputs', 'cache'],
      ),
    ),
  )

const yauaaConfig = coreSchema(
  ENRICHMENTS,
  'yauaa_enrichment_config',
  '1-0-0',
  'The YAUAA enrichment: the size of its cache',
  enrichmentConfig(closedObject({ cacheSize: { type: 'integer' } }, []), false),
)

const currencyConversionConfig = coreSchema(
  'com.snowplowanalytics.snowplow',
  'currency_conversion_config',
  '1-0-0',
  'Currency conversion: the Open Exchange Rates key and account, and the base currency',
  enrichmentConfig(
    closedObject(
      {
        apiKey: text(),
        baseCurrency: text(),
        rateAt: { enum: ['EOD_PRIOR'] },
        accountType: { type: 'string', enum: ['DEVELOPER', 'ENTERPRISE', 'UNLIMITED'] },
      },
      ['apiKey', 'baseCurrency', 'rateAt', 'accountType'],
    ),
  ),
)

export const LOOKUP_CONFIGS = [
  sqlQueryConfig('1-0-0'),
  sqlQueryConfig('1-0-1'),
  apiRequestConfig('1-0-0'),
  apiRequestConfig('1-0-1'),
  apiRequestConfig('1-0-2'),
  yauaaConfig,
  currencyConversionConfig,
] as const
