import hljs from 'highlight.js/lib/core'
import json from 'highlight.js/lib/languages/json'
import { useMemo } from 'preact/hooks'

hljs.registerLanguage('json', json)

/** A note to show under a line of the text: a lint finding, say. */
export interface LineNote {
  readonly line: number
  readonly level: 'error' | 'warning' | 'info'
  readonly text: string
}

/**
 * JSON text exactly as given, highlighted, a line at a time with its number, and notes under the
 * lines they name. The highlighter escapes the text it marks up; JSON tokens never span lines, so
 * the marked-up text splits at its newlines.
 */
export function JsonLines(props: { text: string; notes?: readonly LineNote[]; label: string }) {
  const lines = useMemo(
    () => hljs.highlight(props.text, { language: 'json', ignoreIllegals: true }).value.split('\n'),
    [props.text],
  )
  const notesByLine = new Map<number, LineNote[]>()
  for (const note of props.notes ?? [])
    notesByLine.set(note.line, [...(notesByLine.get(note.line) ?? []), note])
  return (
    <div class="json-lines" role="region" aria-label={props.label} tabIndex={0}>
      {lines.map((html, index) => (
        <div key={index}>
          <div class="json-line">
            <span class="line-number" aria-hidden="true">
              {index + 1}
            </span>
            <code dangerouslySetInnerHTML={{ __html: html === '' ? ' ' : html }} />
          </div>
          {(notesByLine.get(index + 1) ?? []).map((note, n) => (
            <div key={n} class={`line-note ${note.level}`} role="note">
              {note.level}: {note.text}
            </div>
          ))}
        </div>
      ))}
    </div>
  )
}
