import { useEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import type { TimelinePoint } from '../../api/inspection.js'
import { AXIS_FONT, yAxisWidth } from './event-timeline-axis.js'

const GOOD = '#1a7f37'
const BAD = '#b42318'

const chartWidth = (holder: HTMLElement) => Math.max(200, holder.clientWidth)

/** The y axis's width for the labels uPlot is about to draw, measured in their font. */
function measuredYAxisWidth(chart: uPlot, labels: readonly string[] | null): number {
  const context = chart.ctx
  context.save()
  context.font = AXIS_FONT
  const width = yAxisWidth(labels ?? [], (label) => context.measureText(label).width)
  context.restore()
  return width
}

/**
 * Good and failed events per time bucket, stacked bars drawn by uPlot; a click on a bar asks for
 * that bucket's time range. The counts are also written out as text for screen readers.
 */
export function EventTimeline(props: {
  points: readonly TimelinePoint[]
  /** The time the bars cover, in words: "in this range", "in the last hour"… */
  caption: string
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
        width: chartWidth(element),
        height: 140,
        legend: { show: false },
        cursor: { drag: { x: false, y: false }, points: { show: false } },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        axes: [
          { font: AXIS_FONT },
          { font: AXIS_FONT, size: (chart, labels) => measuredYAxisWidth(chart, labels) },
        ],
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
    // The chart is drawn at a width in pixels: it follows the page's (a phone turned, a window
    // narrowed) instead of widening it.
    const resized = new ResizeObserver(() => {
      const width = chartWidth(element)
      if (width !== chart.width) chart.setSize({ width, height: chart.height })
    })
    resized.observe(element)
    return () => {
      resized.disconnect()
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
        {good} good and {failed} failed events {props.caption}; click a bar to show its events.
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
