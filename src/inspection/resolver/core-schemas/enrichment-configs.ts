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
    `${SNOWPLOW}.enrichments`,
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

export const ENRICHMENT_CONFIGS = [
  javascriptScriptConfig('1-0-0'),
  javascriptScriptConfig('1-0-1'),
  piiEnrichmentConfig('2-0-0'),
  piiEnrichmentConfig('2-0-1'),
] as const
