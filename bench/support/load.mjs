// Load from this process (autocannon, over loopback) against servers in other processes; a subject
// and its baseline are measured alternately, same duration and connections, and the median round kept.
import autocannon from 'autocannon'

/** The `q` quantile of sorted numbers. */
export const quantile = (sorted, q) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]

/**
 * One autocannon run: requests/s (mean), latency p50/p99 and mean in ms, and the answers that were
 * not 2xx. Latencies are taken from each response's own time (fractional ms), not from autocannon's
 * histogram, which keeps whole milliseconds only: an answer under 1 ms would read as 0.
 */
export async function load({
  url,
  method = 'GET',
  body,
  /** Gives the body of each request (its count from 0) instead of one `body` for all. */
  bodyOf,
  headers = {},
  duration = 10,
  connections = 10,
  amount,
}) {
  let sent = 0
  const latencies = []
  const result = await new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        method,
        body,
        headers,
        connections,
        ...(amount === undefined ? { duration } : { amount }),
        ...(bodyOf === undefined
          ? {}
          : { requests: [{ setupRequest: (request) => ({ ...request, body: bodyOf(sent++) }) }] }),
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    )
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime)
    })
  })
  latencies.sort((a, b) => a - b)
  const ms = (value) => Number(value.toFixed(3))
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: ms(quantile(latencies, 0.5)),
    p99Ms: ms(quantile(latencies, 0.99)),
    meanMs: ms(latencies.reduce((sum, value) => sum + value, 0) / latencies.length),
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  }
}

/** The median of numbers (with an even count, the mean of the two middle ones). */
export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** The middle round's figure (with an even count, the upper of the two): a figure one round measured. */
const middleRound = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

/** `rounds` times: the baseline, then the subject. Each figure is the median over the rounds. */
export async function alternate({
  subject,
  baseline,
  rounds = 5,
  duration = 10,
  connections = 10,
  warmup = 2,
}) {
  const measured = await interleave({
    targets: { baseline, subject },
    rounds,
    duration,
    connections,
    warmup,
  })
  const { runs: subjectRuns, ...subjectSummary } = measured.subject
  const { runs: baselineRuns, ...baselineSummary } = measured.baseline
  return {
    subject: subjectSummary,
    baseline: baselineSummary,
    // Round by round, subject over the baseline measured just before it: the spread of the ratio.
    ratios: subjectRuns.map((r, i) => r.requestsPerSecond / baselineRuns[i].requestsPerSecond),
  }
}

/**
 * Several targets measured in turn, round after round (so that a drift of the machine's speed
 * touches them alike): per target its summary, as `alternate` gives, and its runs round by round.
 */
export async function interleave({
  targets,
  rounds = 5,
  duration = 10,
  connections = 10,
  warmup = 2,
}) {
  const names = Object.keys(targets)
  // `--warmup <seconds>` on any bench's command line overrides its warm-up (the smoke tests' 0.25).
  const warmupSeconds = option('warmup', warmup)
  for (const name of names) await load({ ...targets[name], duration: warmupSeconds, connections })
  const runs = Object.fromEntries(names.map((name) => [name, []]))
  for (let round = 0; round < rounds; round++)
    for (const name of names)
      runs[name].push(await load({ ...targets[name], duration, connections }))
  return Object.fromEntries(
    names.map((name) => {
      const list = runs[name]
      return [
        name,
        {
          requestsPerSecond: middleRound(list.map((r) => r.requestsPerSecond)),
          p50Ms: middleRound(list.map((r) => r.p50Ms)),
          p99Ms: middleRound(list.map((r) => r.p99Ms)),
          meanMs: middleRound(list.map((r) => r.meanMs)),
          non2xx: list.reduce((sum, r) => sum + r.non2xx, 0),
          errors: list.reduce((sum, r) => sum + r.errors, 0),
          runs: list,
        },
      ]
    }),
  )
}

export const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 ? Number(process.argv[at + 1]) : fallback
}

/**
 * Where a bench's server runs event inspection: in a thread of its own, Floe's default with events
 * in memory (`--thread` asks for it explicitly: FLOE_INSPECTION_THREAD=on), or with
 * `--in-process` on the main thread (FLOE_INSPECTION_THREAD=off), as Floe did before 2026-12-02.
 */
export function inspectionThreadOption() {
  if (process.argv.includes('--in-process'))
    return { thread: false, env: { FLOE_INSPECTION_THREAD: 'off' }, args: ['--in-process'] }
  const asked = process.argv.includes('--thread')
  return {
    thread: true,
    env: asked ? { FLOE_INSPECTION_THREAD: 'on' } : {},
    args: asked ? ['--thread'] : [],
  }
}
