import { existsSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { bootstrapAdmin, type ApiClient } from './api-client.js'
import { startTestApp, type TestApp } from './test-app.js'
import { testConfig } from './test-config.js'

/** Debian's chromium; `.ci/run` installs it on a fresh machine. */
const CHROMIUM = '/usr/bin/chromium'
/** Screenshots of each main page, for people reading the test output (not compared). */
export const SCREENSHOTS = path.resolve('test-output', 'console')

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium, as .ci/run does`)
  mkdirSync(SCREENSHOTS, { recursive: true })
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
}

export const screenshot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true })

export interface ConsoleKey {
  readonly organizationId: string
  readonly apiKeyId: string
  readonly apiKey: string
}

/** A fresh server for a console test: the app, an admin client, and the first-start key to sign in with. */
export async function startConsoleServer(): Promise<{
  floe: TestApp
  admin: ApiClient
  key: ConsoleKey
}> {
  const floe = await startTestApp(testConfig())
  const admin = await bootstrapAdmin(floe)
  const startup = floe.app.startup
  if (startup.kind !== 'initial') throw new Error('expected initial credentials')
  return { floe, admin, key: startup }
}

/** A console page at 1280×800, signed in with `key`; `close` fails when the page had script errors. */
export class ConsolePage {
  private readonly errors: string[] = []

  private constructor(readonly page: Page) {
    page.on('pageerror', (error) => this.errors.push(error.message))
  }

  static async signIn(browser: Browser, baseUrl: string, key: ConsoleKey): Promise<ConsolePage> {
    const opened = new ConsolePage(
      await browser.newPage({ viewport: { width: 1280, height: 800 } }),
    )
    const { page } = opened
    await page.goto(`${baseUrl}/`)
    await page.getByLabel('Organization ID').fill(key.organizationId)
    await page.getByLabel(/API key ID/).fill(key.apiKeyId)
    await page.getByLabel('API key secret').fill(key.apiKey)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Data structures' }).waitFor()
    return opened
  }

  /** Closes the page, and answers the script errors it had (none is expected). */
  async close(): Promise<string[]> {
    await this.page.close()
    return this.errors
  }
}
