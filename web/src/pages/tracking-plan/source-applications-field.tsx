import type { SourceApplication } from '../../api/tracking-plans.js'

/** The source applications to tick, each with its app IDs. */
export function SourceApplicationsField(props: {
  applications: readonly SourceApplication[]
  chosen: ReadonlySet<string>
  onChange: (chosen: Set<string>) => void
}) {
  return (
    <fieldset>
      <legend>Source applications</legend>
      {props.applications.length === 0 && <p class="muted">None defined.</p>}
      {props.applications.map((app) => (
        <label class="inline" key={app.id}>
          <input
            type="checkbox"
            checked={props.chosen.has(app.id)}
            onChange={(e) => {
              const next = new Set(props.chosen)
              if (e.currentTarget.checked) next.add(app.id)
              else next.delete(app.id)
              props.onChange(next)
            }}
          />
          <bdi>{app.name}</bdi>{' '}
          <span class="muted">
            (<bdi>{(app.appIds ?? []).join(', ') || 'no app ID'}</bdi>)
          </span>
        </label>
      ))}
    </fieldset>
  )
}
