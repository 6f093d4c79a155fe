import {
  PII_ENTITY_FIELDS,
  PII_HASH_FUNCTIONS,
  PII_SCALAR_FIELDS,
} from '../../pipeline/enrichments/pii-config.js'
import { closedObject, coreSchema, SNOWPLOW, text, type CoreSchema } from './self-describing.js'

/**
 * The configurations of enrichments that Floe reads from an enrichments directory and checks
 * before it starts, when no repository the user configured has their schemas (offline, say): a
 * `*.js` file becomes a `javascript_script_config` of its own.
 */

const ENRICHMENTS = `${SNOWPLOW}.enrichments`
const flag = { type: 'boolean' }

/** An enrichment configuration: which one, whether it runs, and its parameters. */
const enrichmentConfig = (parameters: CoreSchema): CoreSchema =>
  closedObject({ vendor: text(), name: text(), enabled: { type: 'boolean' }, parameters }, [
    'name',
    'vendor',
    'enabled',
    'parameters',
  ])

const javascriptScriptConfig = (version: '1-0-0' | '1-0-1') =>
  coreSchema(
    SNOWPLOW,
    'javascript_script_config',
    version,
    'A JavaScript enrichment: its script, base64-encoded, and (1-0-1) the object given to it',
    enrichmentConfig(
      closedObject(
        version === '1-0-0' ? { script: text() } : { script: text(), config: { type: 'object' } },
        ['script'],
      ),
    ),
  )

/** An entry of `pii`: one atomic field (`pojo`) or one JSONPath into matching entities (`json`). */
const piiField = {
  ...closedObject(
    {
      pojo: closedObject({ field: { enum: [...PII_SCALAR_FIELDS] } }, ['field']),
      json: closedObject(
        {
          field: { enum: [...PII_ENTITY_FIELDS] },
          schemaCriterion: text({
            pattern:
              '^iglu:([a-zA-Z0-9-_.]+)/([a-zA-Z0-9-_]+)/([a-zA-Z0-9-_]+)/([1-9][0-9]*|\\*)-((?:0|[1-9][0-9]*)|\\*)-((?:0|[1-9][0-9]*)|\\*)$',
          }),
          jsonPath: text({ pattern: '^\\$.*$' }),
        },
        ['field', 'schemaCriterion', 'jsonPath'],
      ),
    },
    [],
  ),
  oneOf: [{ required: ['pojo'] }, { required: ['json'] }],
}

/** PII pseudonymization: 2-0-1 adds `anonymousOnly` (only requests sent with `SP-Anonymous`). */
const piiEnrichmentConfig = (version: '2-0-0' | '2-0-1') =>
  coreSchema(
    ENRICHMENTS,
    'pii_enrichment_config',
    version,
    'PII pseudonymization: the atomic fields and entity values to hash, and the hash with its salt',
    closedObject(
      {
        vendor: text(),
        name: text(),
        enabled: { type: 'boolean' },
        emitEvent: { type: 'boolean' },
        parameters: closedObject(
          {
            pii: { type: 'array', items: piiField },
            strategy: closedObject(
              {
                pseudonymize: closedObject(
                  { hashFunction: { enum: [...PII_HASH_FUNCTIONS] }, salt: text() },
                  ['hashFunction', 'salt'],
                ),
              },
              ['pseudonymize'],
            ),
          },
          ['pii', 'strategy'],
        ),
        ...(version === '2-0-1' ? { anonymousOnly: { type: 'boolean' } } : {}),
      },
      ['vendor', 'name', 'enabled', 'emitEvent', 'parameters'],
    ),
  )

/** Bot detection: which signals it sums up (1-0-1 adds the tracker's client-side detection). */
const botDetectionConfig = (version: '1-0-0' | '1-0-1') => {
  const names = ['useYauaa', 'useIab', 'useAsnLookups']
  if (version === '1-0-1') names.push('useClientSideDetection')
  return coreSchema(
    ENRICHMENTS,
    'bot_detection_enrichment_config',
    version,
    'Bot detection: the signals summed up in one bot_detection entity',
    enrichmentConfig(closedObject(Object.fromEntries(names.map((n) => [n, flag])), names)),
  )
}

/** ASN lookups: the ASNs of bots (a CSV file, a list) and the platforms left alone. */
const asnLookupsConfig = coreSchema(
  ENRICHMENTS,
  'asn_lookups',
  '1-0-0',
  'ASN lookups: which autonomous systems are likely bots',
  closedObject(
    {
      vendor: text({ maxLength: 256 }),
      name: text({ maxLength: 256 }),
      enabled: flag,
      parameters: closedObject(
        {
          botAsnsFile: closedObject({ uri: text({ format: 'uri' }), database: text() }, [
            'uri',
            'database',
          ]),
          botAsns: {
            type: 'array',
            items: closedObject(
              { asn: { type: 'integer', minimum: 0, maximum: 2147483647 }, name: text() },
              ['asn'],
            ),
          },
          bypassPlatforms: {
            type: 'array',
            items: {
              type: 'string',
              enum: ['web', 'iot', 'app', 'mob', 'pc', 'cnsl', 'tv', 'srv', 'headset'],
            },
          },
        },
        [],
      ),
    },
    ['name', 'vendor', 'enabled', 'parameters'],
  ),
)

/** One of the IAB list's files: its one allowed name, and where it is (not a closed object). */
const iabFile = (database: string): CoreSchema => ({
  type: 'object',
  properties: { database: { enum: [database] }, uri: text({ format: 'uri' }) },
  required: ['database', 'uri'],
})

/** The IAB spiders and robots list: its three files, and (1-0-1) patterns of one's own. */
const iabConfig = (version: '1-0-0' | '1-0-1') =>
  coreSchema(
    ENRICHMENTS,
    'iab_spiders_and_robots_enrichment',
    version,
    'The IAB/ABC spiders and bots list: its IP, exclude and include files',
    enrichmentConfig(
      closedObject(
        {
          ipFile: iabFile('ip_exclude_current_cidr.txt'),
          excludeUseragentFile: iabFile('exclude_current.txt'),
          includeUseragentFile: iabFile('include_current.txt'),
          ...(version === '1-0-1'
            ? {
                includeUseragents: { type: 'array', items: text() },
                excludeUseragents: { type: 'array', items: text() },
              }
            : {}),
        },
        ['ipFile', 'excludeUseragentFile', 'includeUseragentFile'],
      ),
    ),
  )

export const ENRICHMENT_CONFIGS = [
  javascriptScriptConfig('1-0-0'),
  javascriptScriptConfig('1-0-1'),
  piiEnrichmentConfig('2-0-0'),
  piiEnrichmentConfig('2-0-1'),
  botDetectionConfig('1-0-0'),
  botDetectionConfig('1-0-1'),
  asnLookupsConfig,
  iabConfig('1-0-0'),
  iabConfig('1-0-1'),
] as const
