import type { Problem, SpecCompatibility } from '../../api/tracking-plans.js'

/** The live verdict of a draft's schemas against their data structures, as Error, Warning or Undecidable. */
export function LiveVerdict(props: { verdict: SpecCompatibility | null; error: string | null }) {
  if (props.error !== null)
    return (
      <div class="verdict incompatible" role="status" aria-label="Compatibility">
        Error: {props.error}
      </div>
    )
  const { verdict } = props
  if (verdict === null) return null
  const label =
    verdict.status === 'compatible'
      ? 'Compatible'
      : verdict.status === 'incompatible'
        ? 'Error'
        : 'Undecidable'
  return (
    <div class={`verdict ${verdict.status}`} role="status" aria-label="Compatibility">
      <p>
        {label}: {verdict.message}
      </p>
      {verdict.sources
        .filter((source) => source.status !== 'compatible')
        .map((source) => (
          <p key={source.source}>
            <code>{source.source}</code>: {source.status}
            {Object.entries(source.properties)
              .filter(([, outcome]) => outcome !== 'compatible')
              .map(([property, outcome]) => ` · ${property} ${outcome}`)
              .join('')}
          </p>
        ))}
    </div>
  )
}

/** The Errors (nothing stored) and Warnings (stored) a write or a read answered. */
export function Problems(props: { problems: readonly Problem[] }) {
  if (props.problems.length === 0) return null
  return (
    <ul class="problems" aria-label="Problems">
      {props.problems.map((problem, index) => (
        <li key={index} class={problem.type === 'Error' ? 'error' : 'warning'}>
          <strong>{problem.type}</strong> {problem.code}
          {problem.source === undefined ? '' : ` at ${problem.source}`}: {problem.title}
          {witnessOf(problem) !== undefined && (
            <pre class="witness">{JSON.stringify(witnessOf(problem), null, 2)}</pre>
          )}
        </li>
      ))}
    </ul>
  )
}

const witnessOf = (problem: Problem): unknown =>
  typeof problem.detail === 'object' && problem.detail !== null
    ? (problem.detail as { witness?: unknown }).witness
    : undefined
