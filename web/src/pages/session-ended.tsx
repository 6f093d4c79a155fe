import type { RefObject } from 'preact'
import { useLayoutEffect, useRef } from 'preact/hooks'
import type { Session } from '../api/session.js'
import { SignIn } from './sign-in.js'

/**
 * Asks, over the page, to sign in again once the session's token was refused. While it is open
 * the page under it is inert and its first field has the focus; once signed in again the focus
 * goes back where it was (the button whose action was refused, say), so it can be tried again.
 */
export function SessionEnded(props: {
  page: RefObject<HTMLElement | null>
  onSignedIn: (session: Session) => void
}) {
  const dialog = useRef<HTMLDivElement>(null)
  useLayoutEffect(() => {
    const page = props.page.current
    const previous = document.activeElement
    if (page !== null) page.inert = true
    dialog.current?.querySelector('input')?.focus()
    return () => {
      if (page !== null) page.inert = false
      if (previous instanceof HTMLElement && previous.isConnected) previous.focus()
    }
  }, [])
  return (
    <div
      class="session-lapsed"
      role="dialog"
      aria-modal="true"
      aria-label="Session ended"
      ref={dialog}
    >
      <SignIn
        notice="Your session has ended: its token expired, or its API key was revoked. Sign in again to go on; this page and what you typed in it are kept, and an action that was refused can be tried again."
        onSignedIn={props.onSignedIn}
      />
    </div>
  )
}
