import type { TrackingPlanApi } from '../../api/tracking-plans.js'
import { Status } from '../../components/status.js'
import { useLoad } from '../../components/use-load.js'
import { href } from '../../router.js'
import { TableHead } from '../../components/table-parts.js'

/** Data products and every event specification, each with where it stands. */
export function TrackingPlanOverview(props: { plans: TrackingPlanApi }) {
  const [loaded] = useLoad(
    () => Promise.all([props.plans.listDataProducts(), props.plans.listScenarios()]),
    [props.plans],
  )
  return (
    <main>
      <header class="page-header">
        <h1>Tracking plan</h1>
        <span class="toolbar">
          <a class="button" href={href('data-products', 'new')}>
            New data product
          </a>
          <a class="button" href={href('event-specs', 'new')}>
            New event specification
          </a>
        </span>
      </header>
      <Status loaded={loaded} what="the tracking plan">
        {([products, scenarios]) => {
          const productNames = new Map(products.map((p) => [p.id, p.name]))
          return (
            <>
              <section aria-labelledby="products-heading">
                <h2 id="products-heading">Data products</h2>
                {products.length === 0 ? (
                  <p class="muted">No data product yet.</p>
                ) : (
                  <table class="data-table">
                    <TableHead columns={['Name', 'Domain', 'Owner', 'Event specifications']} />
                    <tbody>
                      {products.map((product) => (
                        <tr key={product.id}>
                          <td>
                            <a href={href('data-products', product.id)}>{product.name}</a>
                          </td>
                          <td>{product.domain ?? ''}</td>
                          <td>{product.owner ?? ''}</td>
                          <td>{product.eventSpecs?.length ?? 0}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </section>
              <section aria-labelledby="specs-heading">
                <h2 id="specs-heading">Event specifications</h2>
                {scenarios.data.length === 0 ? (
                  <p class="muted">No event specification yet.</p>
                ) : (
                  <table class="data-table">
                    <TableHead columns={['Name', 'Status', 'Version', 'Event', 'Data product']} />
                    <tbody>
                      {scenarios.data.map((scenario) => (
                        <tr key={scenario.id}>
                          <td>
                            <a href={href('event-specs', scenario.id ?? '')}>{scenario.name}</a>
                          </td>
                          <td>
                            <span class={`status ${scenario.status ?? ''}`}>{scenario.status}</span>
                          </td>
                          <td>{scenario.version}</td>
                          <td>
                            <code>{scenario.event?.source ?? '—'}</code>
                          </td>
                          <td>
                            {scenario.dataProductId === undefined ? (
                              '—'
                            ) : (
                              <a href={href('data-products', scenario.dataProductId)}>
                                {productNames.get(scenario.dataProductId) ?? scenario.dataProductId}
                              </a>
                            )}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </section>
            </>
          )
        }}
      </Status>
    </main>
  )
}
