import type { EnrichedEvent } from '../canonical-event.js'
import { tsvSafe } from '../steps/parse-atomic-fields.js'

/** `campaign_attribution` parameters: for each field, the query parameters that may carry it, first wins. */
export interface CampaignAttributionConfig {
  readonly mktMedium: readonly string[]
  readonly mktSource: readonly string[]
  readonly mktTerm: readonly string[]
  readonly mktContent: readonly string[]
  readonly mktCampaign: readonly string[]
  /** Extra click-id parameters → network, tried after gclid, msclkid and dclid. */
  readonly mktClickId?: Readonly<Record<string, string>>
}

const DEFAULT_CLICK_IDS: readonly [string, string][] = [
  ['gclid', 'Google'],
  ['msclkid', 'Microsoft'],
  ['dclid', 'DoubleClick'],
]

/** mkt_* from the page query: the first configured parameter present wins; an empty value is null. */
export function createCampaignAttributionStep(config: CampaignAttributionConfig) {
  const fields = [
    ['mkt_medium', config.mktMedium],
    ['mkt_source', config.mktSource],
    ['mkt_term', config.mktTerm],
    ['mkt_content', config.mktContent],
    ['mkt_campaign', config.mktCampaign],
  ] as const
  const clickIds = [...DEFAULT_CLICK_IDS, ...Object.entries(config.mktClickId ?? {})]
  return function campaignAttributionStep(
    event: EnrichedEvent,
    query: ReadonlyMap<string, string | null>,
  ): void {
    if (query.size === 0) return
    for (const [field, names] of fields) {
      const name = names.find((n) => query.has(n))
      if (name !== undefined) event.fields[field] = tsvSafe(query.get(name) ?? '')
    }
    const click = clickIds.find(([name]) => query.has(name))
    if (click !== undefined) {
      event.fields.mkt_clickid = tsvSafe(query.get(click[0]) ?? '')
      event.fields.mkt_network = click[1]
    }
  }
}
