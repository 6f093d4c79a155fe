import { useState } from 'preact/hooks'
import type { DataProduct, SourceApplication, TrackingPlanApi } from '../../api/tracking-plans.js'
import { ErrorNote, Status } from '../../components/status.js'
import { useLoad } from '../../components/use-load.js'
import { href, navigate } from '../../router.js'
import { CoverageTable } from './coverage-table.js'
import { SourceApplicationsField } from './source-applications-field.js'

const NEW_PRODUCT: DataProduct = { id: '', name: '' }

/** A data product: its fields (create or edit), its event specifications and their coverage. */
export function DataProductPage(props: { plans: TrackingPlanApi; id: string }) {
  const isNew = props.id === 'new'
  const [loaded, reload] = useLoad(
    () =>
      Promise.all([
        isNew ? Promise.resolve(NEW_PRODUCT) : props.plans.getDataProduct(props.id),
        props.plans.listSourceApplications(),
        isNew ? Promise.resolve({ data: [] }) : props.plans.listScenarios(),
      ]),
    [props.plans, props.id],
  )
  return (
    <main>
      <p>
        <a href={href('tracking-plan')}>← Tracking plan</a>
      </p>
      <Status loaded={loaded} what="the data product">
        {([product, applications, scenarios]) => (
          <>
            <h1>{isNew ? 'New data product' : product.name}</h1>
            <ProductForm
              key={product.id}
              plans={props.plans}
              product={product}
              applications={applications}
              onSaved={(saved) => (isNew ? navigate(href('data-products', saved.id)) : reload())}
            />
            {!isNew && (
              <>
                <section aria-labelledby="product-specs-heading">
                  <header class="page-header">
                    <h2 id="product-specs-heading">Event specifications</h2>
                    <a
                      class="button"
                      href={href('event-specs', 'new', { dataProductId: product.id })}
                    >
                      New event specification
                    </a>
                  </header>
                  <ul>
                    {scenarios.data
                      .filter((s) => s.dataProductId === product.id)
                      .map((s) => (
                        <li key={s.id}>
                          <a href={href('event-specs', s.id ?? '')}>{s.name}</a>{' '}
                          <span class="muted">
                            {s.status}, version {s.version}
                          </span>
                        </li>
                      ))}
                  </ul>
                </section>
                <section aria-labelledby="coverage-heading">
                  <h2 id="coverage-heading">Coverage</h2>
                  <CoverageTable dataProductId={product.id} />
                </section>
              </>
            )}
          </>
        )}
      </Status>
    </main>
  )
}

function ProductForm(props: {
  plans: TrackingPlanApi
  product: DataProduct
  applications: readonly SourceApplication[]
  onSaved: (product: DataProduct) => void
}) {
  const { product } = props
  const [name, setName] = useState(product.name)
  const [description, setDescription] = useState(product.description ?? '')
  const [domain, setDomain] = useState(product.domain ?? '')
  const [owner, setOwner] = useState(product.owner ?? '')
  const [apps, setApps] = useState(new Set(product.sourceApplications ?? []))
  const [error, setError] = useState<unknown>(null)
  const [saved, setSaved] = useState(false)

  async function save(event: Event) {
    event.preventDefault()
    setError(null)
    setSaved(false)
    try {
      const written = await props.plans.writeDataProduct({
        ...(product.id === '' ? {} : product),
        name,
        description: description === '' ? null : description,
        domain: domain === '' ? null : domain,
        owner: owner === '' ? null : owner,
        sourceApplications: [...apps],
      })
      setSaved(true)
      props.onSaved(written)
    } catch (failure) {
      setError(failure)
    }
  }

  const text = (label: string, value: string, set: (v: string) => void, required = false) => (
    <label>
      {label}
      <input value={value} required={required} onInput={(e) => set(e.currentTarget.value)} />
    </label>
  )
  return (
    <form class="stacked" aria-label="Data product" onSubmit={(e) => void save(e)}>
      {text('Name', name, setName, true)}
      <label>
        Description
        <textarea
          rows={2}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
      </label>
      {text('Domain', domain, setDomain)}
      {text('Owner', owner, setOwner)}
      <SourceApplicationsField applications={props.applications} chosen={apps} onChange={setApps} />
      <ErrorNote error={error} />
      {saved && <p role="status">Data product saved.</p>}
      <button type="submit">
        {product.id === '' ? 'Create data product' : 'Save data product'}
      </button>
    </form>
  )
}
