/**
 * Whether the page the address names has shown what it was opened for. A session page's cold
 * open reads and renders its own content first (its conversation, timeline and code changes);
 * the sidebar's lists (sessions, projects, disk usage) and the dirty-tree banner wait until the
 * page says it has settled, or MAX_WAIT_MS at most, so that their requests and rendering do not
 * compete with the page's for the network, the server and the main thread. Once settled, it
 * stays so: moving to another page never hides the sidebar again.
 */
import { useEffect, useState, useSyncExternalStore } from 'react';

/** The longest the sidebar waits for a page that never says it has settled (an error, say). */
export const MAX_WAIT_MS = 800;

let settled = false;
const listeners = new Set<() => void>();

/** Said by the page once what it was opened for is on screen (or cannot be). */
export function markPageSettled(): void {
  if (settled) return;
  settled = true;
  for (const listener of [...listeners]) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** True at once when `waits` is false; otherwise once the page has settled or MAX_WAIT_MS have passed. */
export function usePageSettled(waits: boolean): boolean {
  const isSettled = useSyncExternalStore(subscribe, () => settled);
  const [waited, setWaited] = useState(false);
  useEffect(() => {
    if (!waits || isSettled) return;
    const timer = setTimeout(() => setWaited(true), MAX_WAIT_MS);
    return () => clearTimeout(timer);
  }, [waits, isSettled]);
  return !waits || isSettled || waited;
}
