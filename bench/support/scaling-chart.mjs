// The scaling benchmark's figures as an SVG chart: one panel per measure (ingest, indexed query,
// filtered query, scan query, resident memory), the stored events on a logarithmic x axis, the figure on a logarithmic y
// axis, one line per store. Written by bench/scaling.mjs beside its JSON results; no dependency.

const PANEL = { width: 300, height: 230, left: 58, right: 12, top: 34, bottom: 42 }
const STORE_STYLE = {
  memory: { color: '#1f77b4', dash: '' },
  postgres: { color: '#d62728', dash: '6 4' },
}
const MEASURES = [
  { key: 'ingestEventsPerSecond', title: 'Ingest (tp2), events/s', unit: '' },
  { key: 'indexedQueryP50Ms', title: 'Indexed query p50, ms', unit: ' ms' },
  { key: 'filteredQueryP50Ms', title: 'Filtered query p50, ms', unit: ' ms' },
  { key: 'scanQueryP50Ms', title: 'Scan query p50, ms', unit: ' ms' },
  { key: 'rssMb', title: 'Resident memory, MB', unit: ' MB' },
]

const escape = (text) => String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;')
const short = (n) =>
  n >= 1e6 ? `${n / 1e6}M` : n >= 1e3 ? `${n / 1e3}k` : n >= 10 ? `${Math.round(n)}` : `${n}`

/** Powers of ten covering [min, max] (at least one decade). */
function decades(min, max) {
  const low = Math.floor(Math.log10(min))
  const high = Math.max(low + 1, Math.ceil(Math.log10(max)))
  return { low, high }
}

function panel(rows, measure, offsetX) {
  const { width, height, left, right, top, bottom } = PANEL
  const sizes = [...new Set(rows.map((r) => r.size))].sort((a, b) => a - b)
  const values = rows.map((r) => r[measure.key]).filter((v) => v > 0)
  const x = decades(sizes[0], sizes.at(-1))
  const y = decades(Math.min(...values), Math.max(...values))
  const plotW = width - left - right
  const plotH = height - top - bottom
  const px = (size) => offsetX + left + ((Math.log10(size) - x.low) / (x.high - x.low)) * plotW
  const py = (value) => top + plotH - ((Math.log10(value) - y.low) / (y.high - y.low)) * plotH
  const parts = [
    `<text x="${offsetX + width / 2}" y="18" text-anchor="middle" font-weight="bold">${escape(measure.title)}</text>`,
    `<rect x="${offsetX + left}" y="${top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`,
  ]
  for (let d = y.low; d <= y.high; d++) {
    const at = py(10 ** d)
    parts.push(
      `<line x1="${offsetX + left}" x2="${offsetX + left + plotW}" y1="${at}" y2="${at}" stroke="#eee"/>`,
      `<text x="${offsetX + left - 6}" y="${at + 4}" text-anchor="end">${short(10 ** d)}</text>`,
    )
  }
  for (const size of sizes) {
    const at = px(size)
    parts.push(
      `<line x1="${at}" x2="${at}" y1="${top}" y2="${top + plotH}" stroke="#eee"/>`,
      `<text x="${at}" y="${top + plotH + 16}" text-anchor="middle">${short(size)}</text>`,
    )
  }
  parts.push(
    `<text x="${offsetX + left + plotW / 2}" y="${height - 8}" text-anchor="middle">stored events</text>`,
  )
  for (const store of [...new Set(rows.map((r) => r.store))]) {
    const style = STORE_STYLE[store] ?? { color: '#333', dash: '' }
    const points = rows
      .filter((r) => r.store === store && r[measure.key] > 0)
      .sort((a, b) => a.size - b.size)
      .map((r) => [px(r.size), py(r[measure.key]), r[measure.key]])
    parts.push(
      `<polyline fill="none" stroke="${style.color}" stroke-width="2" stroke-dasharray="${style.dash}" points="${points.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(' ')}"/>`,
      ...points.map(
        ([a, b, value]) =>
          `<circle cx="${a.toFixed(1)}" cy="${b.toFixed(1)}" r="3" fill="${style.color}"><title>${store}: ${value}${measure.unit}</title></circle>`,
      ),
    )
  }
  return parts.join('\n')
}

/** The chart of a scaling run's rows ({ store, size, ingestEventsPerSecond, …, rssMb }). */
export function scalingChartSvg(rows, caption) {
  const width = PANEL.width * MEASURES.length
  const height = PANEL.height + 40
  const stores = [...new Set(rows.map((r) => r.store))]
  const legend = stores.map((store, i) => {
    const style = STORE_STYLE[store] ?? { color: '#333', dash: '' }
    const x = 20 + i * 160
    return `<line x1="${x}" x2="${x + 30}" y1="${PANEL.height + 16}" y2="${PANEL.height + 16}" stroke="${style.color}" stroke-width="2" stroke-dasharray="${style.dash}"/><text x="${x + 36}" y="${PANEL.height + 20}">${escape(store === 'postgres' ? 'PostgreSQL store' : 'memory store')}</text>`
  })
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    ...MEASURES.map((measure, i) => panel(rows, measure, i * PANEL.width)),
    ...legend,
    `<text x="${width - 10}" y="${PANEL.height + 20}" text-anchor="end" fill="#555">${escape(caption)}</text>`,
    '</svg>',
    '',
  ].join('\n')
}
