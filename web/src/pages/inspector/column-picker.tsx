import { useRef, useState } from 'preact/hooks'
import { inspection } from '../../api/inspection.js'
import { ErrorNote } from '../../components/status.js'

/**
 * A dialog listing every column the stored events have (canonical fields, and each property of
 * an entity or of the self-describing event), searchable, with the shown ones ticked.
 */
export function ColumnPicker(props: {
  columns: readonly string[]
  onApply: (columns: string[]) => void
}) {
  const dialog = useRef<HTMLDialogElement>(null)
  const [all, setAll] = useState<string[] | null>(null)
  const [chosen, setChosen] = useState<string[]>([...props.columns])
  const [filter, setFilter] = useState('')
  const [error, setError] = useState<unknown>(null)

  async function open() {
    setChosen([...props.columns])
    setFilter('')
    setError(null)
    dialog.current?.showModal()
    try {
      setAll(await inspection.columns())
    } catch (failure) {
      setError(failure)
    }
  }

  const offered = [...new Set([...(all ?? []), ...chosen])].filter((c) =>
    c.toLowerCase().includes(filter.toLowerCase()),
  )
  return (
    <>
      <button type="button" onClick={() => void open()}>
        Columns ({props.columns.length})
      </button>
      <dialog ref={dialog} class="column-picker" aria-label="Columns">
        <h2>Columns</h2>
        <label>
          Find a column
          <input
            value={filter}
            placeholder="a field, an entity, a property"
            onInput={(e) => setFilter(e.currentTarget.value)}
          />
        </label>
        <ErrorNote error={error} />
        <div class="column-list" role="group" aria-label="Columns to show">
          {all === null && error === null && <p class="muted">Loading…</p>}
          {offered.map((column) => (
            <label key={column} class="inline">
              <input
                type="checkbox"
                checked={chosen.includes(column)}
                onChange={(e) =>
                  setChosen(
                    e.currentTarget.checked
                      ? [...chosen, column]
                      : chosen.filter((c) => c !== column),
                  )
                }
              />
              <code>{column}</code>
            </label>
          ))}
        </div>
        <div class="toolbar">
          <button
            type="button"
            disabled={chosen.length === 0}
            onClick={() => {
              props.onApply(chosen)
              dialog.current?.close()
            }}
          >
            Show {chosen.length} columns
          </button>
          <button type="button" class="link" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
        </div>
      </dialog>
    </>
  )
}
