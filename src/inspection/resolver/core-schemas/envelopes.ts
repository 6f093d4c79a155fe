import { closedObject, coreSchema, SNOWPLOW, text, type CoreSchema } from './self-describing.js'

/**
 * The tracker-protocol envelopes: a tp2 POST body (`payload_data`), entity lists (`contexts`) and a
 * self-describing event (`unstruct_event`). Each payload_data version accepts exactly the parameters
 * it names, every one a string.
 */

/** The parameters of payload_data 1-0-0, in the protocol's order. */
const FIRST_PARAMETERS = (
  'tna aid p dtm tz e tid eid tv duid nuid uid vid ip res url page refr fp ctype cookie lang ' +
  'f_pdf f_qt f_realp f_wma f_dir f_fla f_java f_gears f_ag cd ds cs vp mac ' +
  'pp_mix pp_max pp_miy pp_may ad_ba ad_ca ad_ad ad_uid ' +
  'tr_id tr_af tr_tt tr_tx tr_sh tr_ci tr_st tr_co tr_cu ti_id ti_sk ti_nm ti_na ti_ca ti_pr ti_qu ti_cu ' +
  'sa sn st sp se_ca se_ac se_la se_pr se_va ue_na ue_pr ue_px co cx'
).split(' ')

/** What each later revision added. */
const ADDED_BY: Readonly<Record<string, readonly string[]>> = {
  '1-0-0': [],
  '1-0-1': ['ua'],
  '1-0-2': ['tnuid'],
  '1-0-3': ['sid', 'stm'],
  '1-0-4': ['ttm'],
}

function parametersOf(version: string): string[] {
  const versions = Object.keys(ADDED_BY)
  return [
    ...FIRST_PARAMETERS,
    ...versions.slice(0, versions.indexOf(version) + 1).flatMap((v) => ADDED_BY[v] ?? []),
  ]
}

const payloadData = (version: string) =>
  coreSchema(SNOWPLOW, 'payload_data', version, 'A batch of tracker-protocol events', {
    type: 'array',
    minItems: 1,
    items: closedObject(Object.fromEntries(parametersOf(version).map((name) => [name, text()])), [
      'tv',
      'p',
      'e',
    ]),
  })

const IGLU_URI = '^iglu:[a-zA-Z0-9-_.]+/[a-zA-Z0-9-_]+/[a-zA-Z0-9-_]+/[0-9]+-[0-9]+-[0-9]+$'
/** `{schema, data}`: any data, under a schema named by an Iglu URI. */
const selfDescribingData: CoreSchema = closedObject(
  { schema: text({ pattern: IGLU_URI }), data: {} },
  ['schema', 'data'],
)

export const ENVELOPES: readonly (readonly [string, CoreSchema])[] = [
  ...Object.keys(ADDED_BY).map(payloadData),
  // 1-0-0 asks for at least one entity; 1-0-1 takes an empty list.
  coreSchema(SNOWPLOW, 'contexts', '1-0-0', 'A list of self-describing entities', {
    type: 'array',
    minItems: 1,
    items: selfDescribingData,
  }),
  coreSchema(SNOWPLOW, 'contexts', '1-0-1', 'A list of self-describing entities', {
    type: 'array',
    items: selfDescribingData,
  }),
  coreSchema(SNOWPLOW, 'unstruct_event', '1-0-0', 'A self-describing event', selfDescribingData),
]
