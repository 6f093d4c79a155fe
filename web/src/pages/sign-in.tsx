import { useState } from 'preact/hooks'
import { exchangeApiKey } from '../api/client.js'
import { lastOrganizationId, sessionOf, type Session } from '../api/session.js'
import { ErrorNote } from '../components/status.js'

/**
 * Sign in with an API key: a v3 key (key id and secret) or a v2 key (the secret alone), exchanged
 * for an access token by the Console API's own endpoint. The secret never leaves this form: only
 * the token is kept, in session storage.
 */
export function SignIn(props: {
  onSignedIn: (session: Session) => void
  /** Why signing in is asked for again (a lapsed session); absent for a first sign-in. */
  notice?: string
}) {
  const [organizationId, setOrganizationId] = useState(lastOrganizationId)
  const [apiKeyId, setApiKeyId] = useState('')
  const [secret, setSecret] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)

  async function submit(event: Event) {
    event.preventDefault()
    setBusy(true)
    setError(null)
    try {
      const token = await exchangeApiKey(organizationId, apiKeyId, secret)
      const session = sessionOf(token)
      if (session === null)
        throw new Error('The server answered with a token this console cannot read')
      props.onSignedIn(session)
    } catch (failure) {
      setError(failure)
    } finally {
      setBusy(false)
    }
  }

  return (
    <main class="sign-in">
      <h1>{props.notice === undefined ? 'Sign in to Floe' : 'Sign in again'}</h1>
      {props.notice !== undefined && (
        <p class="notice" role="status">
          {props.notice}
        </p>
      )}
      <p class="muted">
        Use an API key of your organization. <code>floe keys create</code> makes one; the first
        start prints the organization and its admin key.
      </p>
      <form onSubmit={(event) => void submit(event)}>
        <label>
          Organization ID
          <input
            name="organizationId"
            required
            autocomplete="organization"
            value={organizationId}
            onInput={(e) => setOrganizationId(e.currentTarget.value)}
          />
        </label>
        <label>
          API key ID <span class="muted">(leave empty for a v2 key)</span>
          <input
            name="apiKeyId"
            autocomplete="username"
            value={apiKeyId}
            onInput={(e) => setApiKeyId(e.currentTarget.value)}
          />
        </label>
        <label>
          API key secret
          <input
            name="apiKey"
            type="password"
            required
            autocomplete="current-password"
            value={secret}
            onInput={(e) => setSecret(e.currentTarget.value)}
          />
        </label>
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  )
}
