// Floe's event inspector: the newest stored events, then every event as it is stored (the live
// stream), read from the inspection API this page is served under (/micro/ui/ or /local/ui/).
// Events come from any tracker, so their fields are only ever written as text (textContent).
import { badEntry, goodEntry, matches, text } from './inspector-entries.js'

/** Rows kept in the page; older ones are dropped as new events arrive. */
const MAX_ROWS = 1000
/** Newest good and newest bad events loaded when the page opens or reconnects. */
const LOADED_PER_KIND = 200
const api = location.pathname.replace(/\/ui\/[^/]*$/, '')
const byId = (id) => document.getElementById(id)
const tbody = document.querySelector('#events tbody')
/** Shown events, newest first: {kind, data, key, time, type, schema, appId, details, haystack, row}. */
const entries = []
/** Live events that came while the page was paused, oldest first. */
let held = []
/** Live events that came while the stored ones were loading, to be merged after them. */
let buffering = null
let paused = false
let picked = null
let source = null
let generation = 0
let countsTimer = null
/** Events waiting for the next batch (oldest first), and when that batch is added. */
let incoming = []
let flushTimer = null

byId('collector-url').textContent = location.origin

function okJson(response) {
  if (!response.ok) throw new Error(`${response.status} from ${response.url}`)
  return response.json()
}
const post = (path, body) =>
  fetch(api + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
/** The inspection API's Iglu lookup of a schema URI, or null for what is not one. */
function lookupPath(uri) {
  const parts = /^iglu:([^/]+)\/([^/]+)\/jsonschema\/([0-9]+-[0-9]+-[0-9]+)$/.exec(uri)
  if (parts === null) return null
  return `${api}/iglu/${encodeURIComponent(parts[1])}/${encodeURIComponent(parts[2])}/jsonschema/${parts[3]}`
}

function visible(item) {
  const wanted = byId('search').value.trim().toLowerCase()
  return byId(`show-${item.kind}`).checked && matches(item, wanted)
}

function render(item) {
  const tr = document.createElement('tr')
  const when = new Date(item.time).toISOString()
  const cells = [
    when.slice(11, 23),
    item.kind === 'good' ? 'GOOD' : 'BAD',
    item.type,
    item.schema,
    item.appId,
    item.details,
  ]
  cells.forEach((value, index) => {
    const td = document.createElement('td')
    td.textContent = value
    td.title = index === 0 ? when : value
    if (index === 1) td.className = `result ${item.kind}`
    tr.appendChild(td)
  })
  tr.addEventListener('click', () => pick(item))
  tr.classList.toggle('hidden', !visible(item))
  item.row = tr
  return tr
}

function summarize() {
  byId('empty').hidden = entries.length > 0
  const shown = entries.filter((item) => !item.row.classList.contains('hidden')).length
  byId('shown').textContent =
    entries.length === 0
      ? ''
      : `${shown} of the ${entries.length} newest events shown (the page keeps at most ${MAX_ROWS}).`
}

/** Adds events to the top of the table in batches, so that a flood of events costs one page update per batch. */
function addNewest(item) {
  incoming.push(item)
  if (incoming.length > 2 * MAX_ROWS) incoming = incoming.slice(-MAX_ROWS)
  if (flushTimer === null) flushTimer = setTimeout(flush, 50)
}

function flush() {
  flushTimer = null
  const batch = incoming.slice(-MAX_ROWS).reverse()
  incoming = []
  const rows = document.createDocumentFragment()
  for (const item of batch) rows.appendChild(render(item))
  tbody.insertBefore(rows, tbody.firstChild)
  entries.unshift(...batch)
  for (const oldest of entries.splice(MAX_ROWS)) {
    oldest.row.remove()
    if (picked === oldest) closeDetail()
  }
  summarize()
}

function deliver(item) {
  if (!paused) return addNewest(item)
  held.push(item)
  if (held.length > MAX_ROWS) held = held.slice(-MAX_ROWS)
  showPause()
}

function arrive(parse, data) {
  let item
  try {
    item = parse(JSON.parse(data))
  } catch {
    return
  }
  if (buffering !== null) buffering.push(item)
  else deliver(item)
  scheduleCounts()
}

/** Replaces the rows with the newest stored events, then adds the live ones that came meanwhile and are not among them. */
async function reload() {
  const mine = ++generation
  buffering = []
  setStatus('loading…')
  try {
    const [good, bad] = await Promise.all([
      post('/good', { limit: LOADED_PER_KIND }).then(okJson),
      post('/bad', { limit: LOADED_PER_KIND }).then(okJson),
    ])
    if (mine !== generation) return
    const loaded = good
      .map(goodEntry)
      .concat(bad.map(badEntry))
      .sort((a, b) => b.time - a.time)
    entries.length = 0
    incoming = []
    tbody.textContent = ''
    closeDetail()
    for (const item of loaded) {
      entries.push(item)
      tbody.appendChild(render(item))
    }
    const alreadyLoaded = new Map()
    for (const item of loaded) alreadyLoaded.set(item.key, (alreadyLoaded.get(item.key) || 0) + 1)
    const early = buffering
    buffering = null
    for (const item of early) {
      const copies = alreadyLoaded.get(item.key) || 0
      if (copies > 0) alreadyLoaded.set(item.key, copies - 1)
      else deliver(item)
    }
    setStatus('live', 'live')
  } catch (error) {
    if (mine !== generation) return
    buffering = null
    setStatus(`could not load the stored events (${error.message})`, 'down')
  }
  summarize()
  refreshCounts()
}

function connect() {
  if (source !== null) source.close()
  source = new EventSource(`${api}/stream`)
  // Also after an automatic reconnection: events may have been missed meanwhile.
  source.addEventListener('open', reload)
  source.addEventListener('good', (message) => arrive(goodEntry, message.data))
  source.addEventListener('bad', (message) => arrive(badEntry, message.data))
  // The store was emptied (by this page or by anyone else, a test suite say).
  source.addEventListener('reset', () => {
    emptied()
    // A load under way may answer with what was there before the reset: loaded again.
    if (buffering !== null) reload()
    else refreshCounts()
  })
  source.addEventListener('overflow', () => {
    setStatus('fell behind the events: reconnecting…', 'down')
    setTimeout(connect, 500)
  })
  source.addEventListener('error', () => setStatus('disconnected: retrying…', 'down'))
}

function setStatus(message, kind) {
  const status = byId('status')
  status.textContent = message
  status.className = kind || ''
}

function scheduleCounts() {
  if (countsTimer !== null) return
  countsTimer = setTimeout(() => {
    countsTimer = null
    refreshCounts()
  }, 250)
}

async function refreshCounts() {
  try {
    const counts = await fetch(`${api}/all`).then(okJson)
    for (const name of ['total', 'good', 'bad'])
      byId(`count-${name}`).textContent = text(counts[name])
  } catch {
    // The status line already says when the server cannot be reached.
  }
}

function pick(item) {
  if (picked !== null && picked.row !== null) picked.row.classList.remove('picked')
  picked = item
  item.row.classList.add('picked')
  byId('detail-title').textContent = `${item.kind === 'good' ? 'Good' : 'Bad'} event: ${item.type}`
  // A bad event's rows are JSON texts: shown parsed, so that they read as the rest.
  const shown =
    item.kind === 'bad' && Array.isArray(item.data.errors)
      ? {
          ...item.data,
          errors: item.data.errors.map((error) => {
            try {
              return JSON.parse(error)
            } catch {
              return error
            }
          }),
        }
      : item.data
  byId('detail-json').textContent = JSON.stringify(shown, null, 2)
  const summary = byId('detail-summary')
  summary.textContent = item.kind === 'bad' ? item.details : ''
  summary.hidden = summary.textContent === ''
  const links = byId('detail-schemas')
  links.textContent = ''
  for (const uri of item.schemas) {
    const path = lookupPath(uri)
    if (path === null) continue
    const link = document.createElement('a')
    link.href = path
    link.target = '_blank'
    link.rel = 'noopener'
    link.textContent = uri
    links.appendChild(link)
  }
  links.hidden = links.childElementCount === 0
  byId('detail').hidden = false
  document.body.classList.add('detail-open')
}

function closeDetail() {
  if (picked !== null && picked.row !== null) picked.row.classList.remove('picked')
  picked = null
  byId('detail').hidden = true
  document.body.classList.remove('detail-open')
}

/** Empties the page, as the store was emptied. */
function emptied() {
  entries.length = 0
  held = []
  incoming = []
  if (buffering !== null) buffering = []
  tbody.textContent = ''
  closeDetail()
  showPause()
  summarize()
}

function showPause() {
  byId('pause').textContent = paused
    ? `Resume${held.length === 0 ? '' : ` (${held.length} new)`}`
    : 'Pause'
}

function refilter() {
  for (const item of entries) item.row.classList.toggle('hidden', !visible(item))
  summarize()
}

byId('search').addEventListener('input', refilter)
byId('show-good').addEventListener('change', refilter)
byId('show-bad').addEventListener('change', refilter)
byId('close-detail').addEventListener('click', closeDetail)
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape') closeDetail()
})
byId('pause').addEventListener('click', () => {
  paused = !paused
  if (!paused) {
    const waiting = held
    held = []
    for (const item of waiting) addNewest(item)
  }
  showPause()
})
byId('reset').addEventListener('click', async () => {
  if (!window.confirm('Delete every stored event, good and bad?')) return
  try {
    const answer = await post('/reset', {})
    if (!answer.ok) throw new Error(`${answer.status} from ${answer.url}`)
    emptied()
  } catch (error) {
    setStatus(`could not reset (${error.message})`, 'down')
  }
  refreshCounts()
})

summarize()
connect()
