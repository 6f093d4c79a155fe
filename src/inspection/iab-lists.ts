import { readFile } from 'node:fs/promises'
import {
  excludeRecords,
  includeRecords,
  ipList,
  type IabLists,
} from './pipeline/enrichments/iab-spiders-and-robots.js'

/** Where the IAB enrichment's three files are, and its own patterns (1-0-1). */
export interface IabSources {
  readonly ipFile: string
  readonly excludeUseragentFile: string
  readonly includeUseragentFile: string
  readonly includeUseragents: readonly string[]
  readonly excludeUseragents: readonly string[]
}

/** Reads one file as the IAB client does (ISO-8859-1), naming it when it cannot be read or parsed. */
async function parsed<T>(file: string, parse: (text: string) => T): Promise<T> {
  try {
    return parse(await readFile(file, 'latin1'))
  } catch (error) {
    throw new Error(`${file}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    })
  }
}

/** The IAB lists, read once at start-up. */
export async function readIabLists(sources: IabSources): Promise<IabLists> {
  const lowered = (patterns: readonly string[]) => patterns.map((p) => p.toLowerCase())
  return {
    ...(await parsed(sources.ipFile, ipList)),
    include: await parsed(sources.includeUseragentFile, includeRecords),
    exclude: await parsed(sources.excludeUseragentFile, excludeRecords),
    customInclude: lowered(sources.includeUseragents),
    customExclude: lowered(sources.excludeUseragents),
  }
}
