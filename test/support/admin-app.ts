import { bootstrapAdmin, type ApiClient } from './api-client.js'
import { startTestApp, type TestApp } from './test-app.js'
import { testConfig } from './test-config.js'
import type { Backend } from './test-databases.js'

/**
 * An app on a fresh database of `backend`, with its first admin; `stop` closes the app and drops
 * the database. `onDisk` gives PGlite a data directory, as a server has, instead of memory.
 */
export interface AdminApp {
  readonly server: TestApp
  readonly admin: ApiClient
  stop(): Promise<void>
}

export async function startAdminApp(
  backend: Backend,
  options: { readonly onDisk?: boolean; readonly icuCollation?: boolean } = {},
): Promise<AdminApp> {
  const database = await backend.create(options)
  let server: TestApp | undefined
  try {
    server = await startTestApp(testConfig({ db: database.config }))
    const running = server
    const stop = async () => {
      await running.close()
      await database.drop()
    }
    return { server, admin: await bootstrapAdmin(server), stop }
  } catch (error) {
    await server?.close()
    await database.drop()
    throw error
  }
}
