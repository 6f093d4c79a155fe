import { useEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import type { TimelinePoint } from '../../api/inspection.js'

const GOOD = '#1a7f37'
const BAD = '#b42318'

/**
 * Good and failed events per time bucket, stacked bars drawn by uPlot; a click on a bar asks for
 * that bucket's time range. The counts are also written out as text for screen readers.
 */
export function EventTimeline(props: {
  points: readonly TimelinePoint[]
  onPick: (bucket: { start: string; end: string }) => void
}) {
  const holder = useRef<HTMLDivElement>(null)
  const pick = useRef(props.onPick)
  pick.current = props.onPick

  useEffect(() => {
    const element = holder.current
    if (element === null || props.points.length === 0) return
    const times = props.points.map((p) => Date.parse(p.bucket.start) / 1000)
    const good = props.points.map((p) => p.validEvents)
    const total = props.points.map((p) => p.validEvents + p.failedEvents)
    const bars = uPlot.paths.bars?.({ size: [0.8, 40] })
    const chart = new uPlot(
      {
        width: Math.max(320, element.clientWidth),
        height: 140,
        legend: { show: false },
        cursor: { drag: { x: false, y: false }, points: { show: false } },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        axes: [{}, { size: 40 }],
        series: [
          {},
          // Drawn first and taller: the failed events are the part of each bar above the good ones.
          { label: 'failed', fill: BAD, stroke: BAD, paths: bars, points: { show: false } },
          { label: 'good', fill: GOOD, stroke: GOOD, paths: bars, points: { show: false } },
        ],
      },
      [times, total, good],
      element,
    )
    const click = () => {
      const index = chart.cursor.idx
      const point = index == null ? undefined : props.points[index]
      if (point !== undefined) pick.current(point.bucket)
    }
    chart.over.addEventListener('click', click)
    return () => {
      chart.over.removeEventListener('click', click)
      chart.destroy()
    }
  }, [props.points])

  const good = props.points.reduce((n, p) => n + p.validEvents, 0)
  const failed = props.points.reduce((n, p) => n + p.failedEvents, 0)
  return (
    <figure class="timeline">
      <div ref={holder} class="timeline-chart" title="Click a bar to show its events" />
      <figcaption class="muted">
        {good} good and {failed} failed events in this range; click a bar to show its events.
      </figcaption>
    </figure>
  )
}

/** `count` buckets of equal length covering [start, end). */
export function bucketsOver(start: number, end: number, count: number) {
  const width = Math.max(1000, Math.ceil((end - start) / count))
  return Array.from({ length: count }, (_, i) => ({
    start: new Date(start + i * width).toISOString(),
    end: new Date(start + (i + 1) * width).toISOString(),
  }))
}
