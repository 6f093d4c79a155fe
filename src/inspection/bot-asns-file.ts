import { readFile } from 'node:fs/promises'

/**
 * The ASNs of an `asn_lookups` `botAsnsFile`: a CSV file whose first line is a header and whose
 * other lines each start with an ASN (the other columns, a name say, are not read), as Enrich reads
 * it. A line that does not start with a number stops start-up, naming it.
 */
export async function readBotAsns(file: string): Promise<number[]> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new Error(
      `Failed to parse CSV file with ASNs. Error: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    )
  }
  const lines = text.split(/\r?\n/)
  if (lines.at(-1) === '') lines.pop()
  return lines.slice(1).map((line, at) => {
    const first = (line.split(',')[0] ?? '').trim()
    if (!/^[+-]?\d+$/.test(first))
      throw new Error(
        `Failed to parse CSV file with ASNs. Error: ${file} line ${at + 2}: ${JSON.stringify(first)} is not an ASN`,
      )
    return Number(first)
  })
}
