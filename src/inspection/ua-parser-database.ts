import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import {
  compileUaParserRules,
  type SkippedRule,
  type UaParserRules,
} from './pipeline/enrichments/ua-parser-rules.js'

/** uap-core's `regexes.yaml` as installed with Floe (the rules the Java ua-parser of enrich uses too). */
export const UAP_CORE_REGEXES = createRequire(import.meta.url).resolve('uap-core/regexes.yaml')

/**
 * Reads and compiles a uap-core style `regexes.yaml`, once, at start-up when the enrichment is
 * configured (a wrong file stops the start, naming it). Throws when the file cannot be read or has
 * the wrong shape; regexes JavaScript refuses are skipped and returned. The YAML parser is loaded
 * only then.
 */
export async function loadUaParserRules(file: string = UAP_CORE_REGEXES): Promise<{
  rules: UaParserRules
  skipped: SkippedRule[]
}> {
  let document: unknown
  try {
    const { parse } = await import('yaml')
    document = parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new Error(
      `cannot read the user-agent rules ${file}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    )
  }
  try {
    return compileUaParserRules(document)
  } catch (error) {
    throw new Error(
      `${file} is not a uap-core regexes file: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    )
  }
}
