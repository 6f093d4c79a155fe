import { useMemo } from 'preact/hooks'
import { currentIn, type DataStructure, type RegistryApi } from '../../api/registry.js'
import { Status } from '../../components/status.js'
import { useLoad } from '../../components/use-load.js'
import { href, navigate } from '../../router.js'
import { TableHead } from '../../components/table-parts.js'

const versionIn = (structure: DataStructure, env: 'DEV' | 'PROD') => {
  const deployment = currentIn(structure, env)
  if (deployment === null) return '—'
  return deployment.patchLevel > 0
    ? `${deployment.version} (patch ${deployment.patchLevel})`
    : deployment.version
}

/** Every data structure of the organization, searchable by vendor, name, type and description. */
export function DataStructureList(props: { registry: RegistryApi; search: string }) {
  const [loaded] = useLoad(() => props.registry.list(), [props.registry])
  return (
    <main>
      <header class="page-header">
        <h1>Data structures</h1>
        <a class="button" href={href('data-structures', 'new')}>
          New data structure
        </a>
      </header>
      <label class="search">
        Search
        <input
          type="search"
          placeholder="vendor, name, type or description"
          value={props.search}
          onInput={(e) =>
            navigate(href('data-structures', { q: e.currentTarget.value }), { replace: true })
          }
        />
      </label>
      <Status loaded={loaded} what="the data structures">
        {(structures) => <StructureTable structures={structures} search={props.search} />}
      </Status>
    </main>
  )
}

function StructureTable(props: { structures: readonly DataStructure[]; search: string }) {
  const shown = useMemo(() => {
    const words = props.search.toLowerCase().split(/\s+/).filter(Boolean)
    return props.structures.filter((s) => {
      const text =
        `${s.vendor} ${s.name} ${s.meta.schemaType ?? ''} ${s.description ?? ''}`.toLowerCase()
      return words.every((word) => text.includes(word))
    })
  }, [props.structures, props.search])
  if (props.structures.length === 0)
    return <p class="muted">No data structure yet. Create one with “New data structure”.</p>
  return (
    <>
      <p class="muted" role="status">
        Showing {shown.length} of {props.structures.length}
      </p>
      <table class="data-table">
        <TableHead columns={['Vendor', 'Name', 'Type', 'DEV', 'PROD', 'Hidden']} />
        <tbody>
          {shown.map((s) => (
            <tr key={s.hash}>
              <td>{s.vendor}</td>
              <td>
                <a href={href('data-structures', s.hash)}>{s.name}</a>
              </td>
              <td>{s.meta.schemaType ?? '—'}</td>
              <td>{versionIn(s, 'DEV')}</td>
              <td>{versionIn(s, 'PROD')}</td>
              <td>{s.meta.hidden === true ? 'hidden' : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  )
}
