import { isJsonObject } from '../../../shared/index.js'
/**
 * The rules of a uap-core `regexes.yaml` (already parsed into plain data), compiled once, and the
 * matcher that applies them as the uap-core specification says: within each of the three lists the
 * first regex that matches decides; a field takes its `*_replacement` when there is one, with `$1`…`$9`
 * standing for the regex's groups, else the group in its position; an empty result is missing, and a
 * missing family is "Other".
 */

/** How one output field is made: from its replacement template, else from a group (if any). */
interface Field {
  readonly template: string | null
  readonly group: number | null
}

interface Rule {
  readonly regex: RegExp
  /** The output fields in order, family first. */
  readonly fields: readonly Field[]
}

export interface UaParserRules {
  readonly userAgent: readonly Rule[]
  readonly os: readonly Rule[]
  readonly device: readonly Rule[]
}

/** A regex that JavaScript refused; the rule is left out. */
export interface SkippedRule {
  readonly list: string
  readonly index: number
  readonly regex: string
  readonly error: string
}

export interface ParsedUserAgent {
  readonly userAgent: {
    readonly family: string
    readonly major: string | null
    readonly minor: string | null
    readonly patch: string | null
  }
  readonly os: {
    readonly family: string
    readonly major: string | null
    readonly minor: string | null
    readonly patch: string | null
    readonly patchMinor: string | null
  }
  readonly device: {
    readonly family: string
    readonly brand: string | null
    readonly model: string | null
  }
}

/** Each list's output fields: the replacement key, and the group used without one. A device's brand has no group; its model, like its family, defaults to group 1. */
const LISTS = {
  user_agent_parsers: [
    ['family_replacement', 1],
    ['v1_replacement', 2],
    ['v2_replacement', 3],
    ['v3_replacement', 4],
  ],
  os_parsers: [
    ['os_replacement', 1],
    ['os_v1_replacement', 2],
    ['os_v2_replacement', 3],
    ['os_v3_replacement', 4],
    ['os_v4_replacement', 5],
  ],
  device_parsers: [
    ['device_replacement', 1],
    ['brand_replacement', null],
    ['model_replacement', 1],
  ],
} as const satisfies Record<string, readonly (readonly [string, number | null])[]>

function compileList(
  document: Record<string, unknown>,
  list: keyof typeof LISTS,
  skipped: SkippedRule[],
): Rule[] {
  const entries = document[list]
  if (!Array.isArray(entries)) throw new Error(`${list} must be a list`)
  const rules: Rule[] = []
  entries.forEach((entry: unknown, index) => {
    if (!isJsonObject(entry) || typeof entry.regex !== 'string')
      throw new Error(`${list}[${index}] has no regex`)
    try {
      const flags = entry.regex_flag === 'i' ? 'i' : ''
      const fields = LISTS[list].map(([key, group]): Field => ({
        template: typeof entry[key] === 'string' ? entry[key] : null,
        group,
      }))
      rules.push({ regex: new RegExp(entry.regex, flags), fields })
    } catch (error) {
      skipped.push({
        list,
        index,
        regex: entry.regex,
        error: error instanceof Error ? error.message : String(error),
      })
    }
  })
  return rules
}

/**
 * Compiles the three rule lists. A regex JavaScript cannot compile (Java-only syntax) is skipped and
 * reported rather than failing the whole file; a document of the wrong shape throws.
 */
export function compileUaParserRules(document: unknown): {
  rules: UaParserRules
  skipped: SkippedRule[]
} {
  if (!isJsonObject(document))
    throw new Error('expected a mapping with user_agent_parsers, os_parsers and device_parsers')
  const skipped: SkippedRule[] = []
  const rules = {
    userAgent: compileList(document, 'user_agent_parsers', skipped),
    os: compileList(document, 'os_parsers', skipped),
    device: compileList(document, 'device_parsers', skipped),
  }
  return { rules, skipped }
}

/** `$1`…`$9` replaced by the groups (an unmatched group is empty), trimmed; empty → null. */
function fill(template: string, match: RegExpExecArray): string | null {
  const filled = template.replace(/\$(\d)/g, (_, n: string) => match[Number(n)] ?? '').trim()
  return filled === '' ? null : filled
}

/** The fields of the first matching rule, in order; none when no rule matches. */
function firstMatch(rules: readonly Rule[], text: string): (string | null)[] {
  for (const rule of rules) {
    const match = rule.regex.exec(text)
    if (match === null) continue
    return rule.fields.map(({ template, group }) => {
      if (template !== null) return fill(template, match)
      const value = group === null ? undefined : match[group]
      return value === undefined || value === '' ? null : value
    })
  }
  return []
}

/** The user agent, OS and device a user-agent string describes. */
export function parseUserAgent(rules: UaParserRules, text: string): ParsedUserAgent {
  const [uaFamily, uaMajor, uaMinor, uaPatch] = firstMatch(rules.userAgent, text)
  const [osFamily, osMajor, osMinor, osPatch, osPatchMinor] = firstMatch(rules.os, text)
  const [deviceFamily, deviceBrand, deviceModel] = firstMatch(rules.device, text)
  return {
    userAgent: {
      family: uaFamily ?? 'Other',
      major: uaMajor ?? null,
      minor: uaMinor ?? null,
      patch: uaPatch ?? null,
    },
    os: {
      family: osFamily ?? 'Other',
      major: osMajor ?? null,
      minor: osMinor ?? null,
      patch: osPatch ?? null,
      patchMinor: osPatchMinor ?? null,
    },
    device: {
      family: deviceFamily ?? 'Other',
      brand: deviceBrand ?? null,
      model: deviceModel ?? null,
    },
  }
}
