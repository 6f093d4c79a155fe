import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readBotAsns } from './bot-asns-file.js'

describe('the bot ASNs file of asn_lookups', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-bot-asns-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const file = (name: string, text: string) => {
    const where = path.join(dir, name)
    writeFileSync(where, text)
    return where
  }

  it('reads the first column of every line after the header', async () => {
    expect(
      await readBotAsns(file('asns.csv', 'asn,name\n16509, Amazon\r\n 15169 ,Google,extra\n')),
    ).toEqual([16509, 15169])
    expect(await readBotAsns(file('header.csv', 'asn,name'))).toEqual([])
  })

  it('stops start-up on a line that does not start with an ASN, or a file it cannot read', async () => {
    await expect(readBotAsns(file('bad.csv', 'asn\n1\nAS2,x\n'))).rejects.toThrow(
      /Failed to parse CSV file with ASNs.*line 3: "AS2" is not an ASN/,
    )
    await expect(readBotAsns(path.join(dir, 'absent.csv'))).rejects.toThrow(
      /Failed to parse CSV file with ASNs. Error: ENOENT/,
    )
  })
})
