import { diffLines } from 'diff'
import { useMemo } from 'preact/hooks'

/** Two texts side by side as one list of lines: removed (−), added (+) and unchanged. */
export function TextDiff(props: { before: string; after: string; label: string }) {
  const parts = useMemo(() => diffLines(props.before, props.after), [props.before, props.after])
  const rows: { kind: 'added' | 'removed' | 'same'; text: string }[] = []
  for (const part of parts) {
    const lines = part.value.replace(/\n$/, '').split('\n')
    const kind = part.added ? 'added' : part.removed ? 'removed' : 'same'
    for (const text of lines) rows.push({ kind, text })
  }
  const changed = rows.filter((row) => row.kind !== 'same').length
  return (
    <div class="text-diff" role="region" aria-label={props.label} tabIndex={0}>
      {changed === 0 && <p class="muted">The two texts are the same.</p>}
      {rows.map((row, index) => (
        <div key={index} class={`diff-line ${row.kind}`}>
          <span class="diff-mark" aria-label={row.kind === 'same' ? undefined : row.kind}>
            {row.kind === 'added' ? '+' : row.kind === 'removed' ? '−' : ' '}
          </span>
          <code>{row.text === '' ? ' ' : row.text}</code>
        </div>
      ))}
    </div>
  )
}
