import type { CompatibilityVerdict, RegistryApi } from '../../api/registry.js'
import { laidOut } from '../../components/json-layout.js'
import { Status } from '../../components/status.js'
import { TextDiff } from '../../components/text-diff.js'
import { useLoad } from '../../components/use-load.js'

/** What the engine says of moving from `from` to `to`: can every old value still be sent? */
export function VerdictNote(props: { verdict: CompatibilityVerdict; from: string; to: string }) {
  const { verdict } = props
  if (verdict.outcome === 'compatible')
    return (
      <p class="verdict compatible" role="status">
        Compatible: every value valid under {props.from} is valid under {props.to}.
      </p>
    )
  if (verdict.outcome === 'undecidable')
    return (
      <p class="verdict undecidable" role="status">
        Undecidable: the engine could not decide within its budget
        {verdict.reasons[0] === undefined ? '' : ` (${verdict.reasons[0].detail})`}.
      </p>
    )
  return (
    <div class="verdict incompatible" role="status">
      <p>
        Breaking: a value valid under {props.from} is refused by {props.to}
        {verdict.path === undefined ? '' : ` at ${verdict.path}`}.
      </p>
      {verdict.witness !== undefined && (
        <>
          <p>Witness instance:</p>
          <pre class="witness">{JSON.stringify(verdict.witness, null, 2)}</pre>
        </>
      )}
    </div>
  )
}

/** Two versions' texts as a line diff, with the compatibility verdict of the move between them. */
export function VersionDiff(props: {
  registry: RegistryApi
  hash: string
  versions: readonly string[]
  from: string
  to: string
  onChange: (from: string, to: string) => void
}) {
  const { registry, hash, from, to } = props
  const [loaded] = useLoad(async () => {
    const [before, after] = await Promise.all([
      registry.versionText(hash, from),
      registry.versionText(hash, to),
    ])
    const verdict = await registry.compatibility(JSON.parse(before), JSON.parse(after))
    return { before, after, verdict }
  }, [registry, hash, from, to])
  const picker = (label: string, value: string, pick: (v: string) => void) => (
    <label>
      {label}
      <select value={value} onChange={(e) => pick(e.currentTarget.value)}>
        {props.versions.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    </label>
  )
  return (
    <>
      <div class="toolbar">
        {picker('From', from, (v) => props.onChange(v, to))}
        {picker('To', to, (v) => props.onChange(from, v))}
      </div>
      <Status loaded={loaded} what="the two versions">
        {({ before, after, verdict }) => (
          <>
            <VerdictNote verdict={verdict} from={from} to={to} />
            <TextDiff
              before={laidOut(before)}
              after={laidOut(after)}
              label={`Changes from ${from} to ${to}`}
            />
          </>
        )}
      </Status>
    </>
  )
}
