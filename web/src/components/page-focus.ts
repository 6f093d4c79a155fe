import type { RefObject } from 'preact'
import { useLayoutEffect, useRef } from 'preact/hooks'

/**
 * Moves the focus to the new page's heading when the page changes (its path: a filter or a tab
 * that changes only the query keeps the focus where it is). Without it the link or row that was
 * followed is gone, or stays behind in the top bar, and a keyboard or screen reader starts over
 * from the document's top. A heading that comes with the page's data gets the focus when it
 * comes, unless the person has moved it meanwhile; until then the content holds it. A layout
 * effect, so that the focus has moved before anything typed can land on the page.
 */
export function usePageFocus(content: RefObject<HTMLElement | null>, page: string): void {
  const shown = useRef(page)
  useLayoutEffect(() => {
    if (shown.current === page) return
    shown.current = page
    const holder = content.current
    if (holder === null) return
    const focusHeading = (): boolean => {
      const heading = holder.querySelector('h1')
      if (heading === null) return false
      // A heading is not focusable by itself; -1 keeps it out of the Tab order.
      heading.tabIndex = -1
      heading.focus()
      return true
    }
    if (focusHeading()) return
    holder.focus()
    const observer = new MutationObserver(() => {
      if (document.activeElement !== holder || focusHeading()) observer.disconnect()
    })
    observer.observe(holder, { childList: true, subtree: true })
    return () => observer.disconnect()
  }, [page])
}
