import { ApiError } from '../../api/client.js'

/** How a refused deployment may be sent again, on purpose. */
export interface DeploymentOverride {
  /** Deploy a version whose number understates its change (409 MISVERSIONED_CHANGE). */
  readonly allowMisversioned?: boolean
  /** Replace a version already in DEV with other content (409 PATCH_REQUIRED). */
  readonly patch?: boolean
}

/**
 * The way on from a deployment the registry refused for a reason the person may overrule: a
 * button that sends it again saying so, under the refusal's own message (shown above it).
 */
export function OverrideRefusal(props: {
  error: unknown
  busy: boolean
  onOverride: (override: DeploymentOverride) => void
}) {
  if (!(props.error instanceof ApiError)) return null
  if (props.error.code === 'MISVERSIONED_CHANGE')
    return (
      <p class="toolbar">
        <button
          type="button"
          disabled={props.busy}
          onClick={() => props.onOverride({ allowMisversioned: true })}
        >
          Deploy anyway, with this version number
        </button>
        <span class="muted">
          Readers of this structure will not be told of the change by its version.
        </span>
      </p>
    )
  if (props.error.code === 'PATCH_REQUIRED')
    return (
      <p class="toolbar">
        <button
          type="button"
          disabled={props.busy}
          onClick={() => props.onOverride({ patch: true })}
        >
          Patch this version in DEV
        </button>
        <span class="muted">Its content in DEV is replaced; PROD is not touched.</span>
      </p>
    )
  return null
}
