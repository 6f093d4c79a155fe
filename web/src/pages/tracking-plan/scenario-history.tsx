import type { HistoryRecord, TrackingPlanApi } from '../../api/tracking-plans.js'
import { Status } from '../../components/status.js'
import { TextDiff } from '../../components/text-diff.js'
import { useLoad } from '../../components/use-load.js'
import { TableHead, UtcTime } from '../../components/table-parts.js'

const snapshotText = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`

/** Every kept version of a specification, and a diff of any two of them. */
export function ScenarioHistory(props: {
  plans: TrackingPlanApi
  id: string
  history: readonly HistoryRecord[]
  from: number | null
  to: number | null
  onPick: (from: number, to: number) => void
}) {
  const versions = [...new Set(props.history.map((h) => h.version))].sort((a, b) => b - a)
  const to = props.to ?? versions[0] ?? 0
  const from = props.from ?? versions[1] ?? to
  const [loaded] = useLoad(async () => {
    const [before, after] = await Promise.all([
      props.plans.getScenario(props.id, from),
      props.plans.getScenario(props.id, to),
    ])
    return { before: snapshotText(before.data[0]), after: snapshotText(after.data[0]) }
  }, [props.plans, props.id, from, to])
  const picker = (label: string, value: number, pick: (v: number) => void) => (
    <label>
      {label}
      <select value={value} onChange={(e) => pick(Number(e.currentTarget.value))}>
        {versions.map((v) => (
          <option key={v} value={v}>
            version {v}
          </option>
        ))}
      </select>
    </label>
  )
  return (
    <>
      <table class="data-table" aria-label="History">
        <TableHead columns={['Version', 'Status', 'When', 'Who', 'Message']} />
        <tbody>
          {[...props.history].reverse().map((record, index) => (
            <tr key={index}>
              <td>{record.version}</td>
              <td>{record.status}</td>
              <td>
                <UtcTime iso={record.date} />
              </td>
              <td>{record.author}</td>
              <td>{record.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {versions.length > 1 && (
        <>
          <div class="toolbar">
            {picker('From', from, (v) => props.onPick(v, to))}
            {picker('To', to, (v) => props.onPick(from, v))}
          </div>
          <Status loaded={loaded} what="the two versions">
            {({ before, after }) => (
              <TextDiff
                before={before}
                after={after}
                label={`Changes from version ${from} to ${to}`}
              />
            )}
          </Status>
        </>
      )}
    </>
  )
}
