import { useEffect, useState } from 'preact/hooks'
import type { TrackingPlanApi, Trigger } from '../../api/tracking-plans.js'

/** A web address that may be a link: http or https only. */
const linkable = (url: string) => /^https?:\/\//i.test(url)

/** A trigger's image, read with the session's token (an `<img>` cannot send one). */
function TriggerImage(props: { plans: TrackingPlanApi; url: string; alt: string }) {
  const path = props.plans.imagePath(props.url)
  const [source, setSource] = useState<string | null>(null)
  const [failed, setFailed] = useState<string | null>(null)
  useEffect(() => {
    if (path === null) return
    let objectUrl: string | null = null
    let current = true
    props.plans.triggerImage(path).then(
      (blob) => {
        if (!current) return
        objectUrl = URL.createObjectURL(blob)
        setSource(objectUrl)
      },
      (error: unknown) => current && setFailed((error as Error).message),
    )
    return () => {
      current = false
      if (objectUrl !== null) URL.revokeObjectURL(objectUrl)
    }
  }, [props.plans, path])
  if (path === null) return <span class="muted">An image kept elsewhere: {props.url}</span>
  if (failed !== null) return <span class="muted">The image could not be read: {failed}</span>
  if (source === null) return <span class="muted">Loading the image…</span>
  return <img class="trigger-image" src={source} alt={props.alt} />
}

/** An event specification's triggers: what sets the event off, where, and its picture. */
export function TriggerList(props: { plans: TrackingPlanApi; triggers: readonly unknown[] }) {
  // Older records may hold triggers as plain strings.
  const triggers = props.triggers.map((trigger): Trigger =>
    typeof trigger === 'string' ? { description: trigger } : (trigger as Trigger),
  )
  if (triggers.length === 0) return <p class="muted">No trigger is described.</p>
  return (
    <ul class="triggers">
      {triggers.map((trigger, index) => (
        <li key={trigger.id ?? index}>
          <p>{trigger.description ?? <span class="muted">No description</span>}</p>
          {(trigger.appIds ?? []).length > 0 && (
            <p class="muted">
              App IDs:{' '}
              {(trigger.appIds ?? []).map((appId, n) => (
                <span key={n}>
                  {n > 0 ? ', ' : ''}
                  <bdi>{appId}</bdi>
                </span>
              ))}
            </p>
          )}
          {trigger.url !== undefined && trigger.url !== '' && (
            <p>
              {linkable(trigger.url) ? (
                <a href={trigger.url} rel="noopener noreferrer" target="_blank">
                  {trigger.url}
                </a>
              ) : (
                trigger.url
              )}
            </p>
          )}
          {trigger.variantUrls?.original !== undefined && (
            <TriggerImage
              plans={props.plans}
              url={trigger.variantUrls.original}
              alt={trigger.description ?? `Trigger ${index + 1}`}
            />
          )}
        </li>
      ))}
    </ul>
  )
}
