import { Status } from '../../components/status.js'
import { useLoad } from '../../components/use-load.js'
import { href } from '../../router.js'
import { TableHead } from '../../components/table-parts.js'

interface SpecificationCoverage {
  readonly id: string
  readonly name: string
  readonly version: number
  readonly status: string
  readonly dataProductId: string | null
  readonly eventsSeen: number
  readonly eventsWithViolations: number
  readonly eventsBad?: number
  readonly firstSeen: string | null
  readonly lastSeen: string | null
}

interface Coverage {
  readonly eventSpecifications: readonly SpecificationCoverage[]
  readonly neverSeen: readonly { id: string; name: string; dataProductId: string | null }[]
}

const isSeen = (s: SpecificationCoverage) => s.eventsSeen > 0 || (s.eventsBad ?? 0) > 0

/** `/micro/coverage`: what the inspected events exercised (the inspector needs no token). */
async function loadCoverage(): Promise<Coverage> {
  const response = await fetch('/micro/coverage')
  if (!response.ok) throw new Error(`/micro/coverage answered ${response.status}`)
  return (await response.json()) as Coverage
}

/** Each event specification of a data product: seen or never seen, how often, with violations. */
export function CoverageTable(props: { dataProductId: string }) {
  const [loaded, reload] = useLoad(loadCoverage, [])
  return (
    <Status loaded={loaded} what="the coverage">
      {(coverage) => {
        const specifications = coverage.eventSpecifications.filter(
          (s) => s.dataProductId === props.dataProductId,
        )
        const never = new Set(coverage.neverSeen.map((s) => s.id))
        if (specifications.length === 0)
          return <p class="muted">No event specification of this data product is expected.</p>
        return (
          <>
            <p class="toolbar">
              <span class="muted" role="status">
                {specifications.filter(isSeen).length} of {specifications.length} seen in the
                inspected events
              </span>
              <button type="button" class="link" onClick={reload}>
                Refresh
              </button>
            </p>
            <table class="data-table" aria-label="Coverage">
              <TableHead
                columns={['Event specification', 'Seen', 'Events', 'With violations', 'Last seen']}
              />
              <tbody>
                {specifications.map((s) => (
                  <tr key={s.id}>
                    <td>
                      <a href={href('event-specs', s.id)}>{s.name}</a>
                    </td>
                    <td class={never.has(s.id) ? 'warning' : isSeen(s) ? 'success' : 'muted'}>
                      {never.has(s.id)
                        ? 'never seen'
                        : isSeen(s)
                          ? 'seen'
                          : `not expected (${s.status})`}
                    </td>
                    <td>{s.eventsSeen}</td>
                    <td class={s.eventsWithViolations > 0 ? 'error' : ''}>
                      {s.eventsWithViolations}
                    </td>
                    <td>{s.lastSeen ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )
      }}
    </Status>
  )
}
