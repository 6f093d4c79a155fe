import { createApp, type AppDeps, type FloeApp } from '../../src/app.js'
import type { Config } from '../../src/config/config.js'
import type { Clock } from '../../src/auth/clock.js'
import type { ConsoleClientConfig } from '../../src/config/index.js'

/** A running app on a loopback port: tests talk to it over real HTTP. */
export interface TestApp {
  readonly app: FloeApp
  readonly baseUrl: string
  close(): Promise<void>
}

export async function startTestApp(config: Config, deps: AppDeps = {}): Promise<TestApp> {
  const app = await createApp(config, deps)
  // Tests read the first-start secret from `app.startup`: it counts as shown.
  await app.confirmStartupShown()
  const baseUrl = await app.http.listen({ host: '127.0.0.1', port: 0 })
  return { app, baseUrl, close: () => app.close() }
}

/** A clock that only moves when the test says so. */
export class FakeClock implements Clock {
  constructor(private current = new Date('2026-01-01T00:00:00Z')) {}
  now(): Date {
    return new Date(this.current)
  }
  advanceSeconds(seconds: number): void {
    this.current = new Date(this.current.getTime() + seconds * 1000)
  }
}

/** How a command-line client reaches a fresh test app: with the key its first start made. */
export function firstStartConnection(floe: TestApp): ConsoleClientConfig & { apiKeyId: string } {
  const startup = floe.app.startup
  if (startup.kind !== 'initial') throw new Error('expected initial credentials')
  return {
    serverUrl: floe.baseUrl,
    organizationId: startup.organizationId,
    apiKeyId: startup.apiKeyId,
    apiKey: startup.apiKey,
    timeoutSeconds: 60,
  }
}
