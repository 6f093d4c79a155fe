import { parentPort, workerData } from 'node:worker_threads'
import { copyTemplate } from './template-copy.js'

// This module runs in the template copy's own thread only (see pglite-template.ts).

/** What the copy's thread is given. */
export interface TemplateCopyOrder {
  readonly clusterDir: string
  readonly template: string
}

/** How the copy ended: done, or its error's message and code (`ENOENT`…). */
export type TemplateCopyOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly message: string; readonly code: string | null }

if (parentPort !== null) {
  const port = parentPort
  const { clusterDir, template } = workerData as TemplateCopyOrder
  copyTemplate(clusterDir, template).then(
    () => port.postMessage({ ok: true } satisfies TemplateCopyOutcome),
    (error: unknown) =>
      port.postMessage({
        ok: false,
        message: error instanceof Error ? error.message : String(error),
        code:
          typeof (error as { code?: unknown } | null)?.code === 'string'
            ? (error as { code: string }).code
            : null,
      } satisfies TemplateCopyOutcome),
  )
}
