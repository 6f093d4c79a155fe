import { ApiError } from '../../api/client.js'

/** How a refused deployment may be sent again, on purpose. */
export interface DeploymentOverride {
  /** Deploy a version whose number understates its change (409 MISVERSIONED_CHANGE). */
  readonly allowMisversioned?: boolean
  /** Replace a version already in DEV with other content (409 PATCH_REQUIRED). */
  readonly patch?: boolean
}

/** For each refusal a person may overrule: the button that sends it again, and what it means. */
const OVERRIDES: Readonly<
  Record<string, { label: string; note: string; override: DeploymentOverride }>
> = {
  MISVERSIONED_CHANGE: {
    label: 'Deploy anyway, with this version number',
    note: 'Readers of this structure will not be told of the change by its version.',
    override: { allowMisversioned: true },
  },
  PATCH_REQUIRED: {
    label: 'Patch this version in DEV',
    note: 'Its content in DEV is replaced; PROD is not touched.',
    override: { patch: true },
  },
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
  const code = props.error instanceof ApiError ? props.error.code : null
  const way = code === null ? undefined : OVERRIDES[code]
  if (way === undefined) return null
  return (
    <p class="toolbar">
      <button type="button" disabled={props.busy} onClick={() => props.onOverride(way.override)}>
        {way.label}
      </button>
      <span class="muted">{way.note}</span>
    </p>
  )
}
