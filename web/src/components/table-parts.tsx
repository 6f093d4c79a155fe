/** A table's header row of plain column names. */
export function TableHead(props: { columns: readonly string[] }) {
  return (
    <thead>
      <tr>
        {props.columns.map((column) => (
          <th key={column} scope="col">
            {column}
          </th>
        ))}
      </tr>
    </thead>
  )
}

/** An ISO 8601 UTC instant, written for people (`2026-11-26 12:00:00.000 UTC`). */
export function UtcTime(props: { iso: string }) {
  return <time dateTime={props.iso}>{props.iso.replace('T', ' ').replace('Z', ' UTC')}</time>
}
