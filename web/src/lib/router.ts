/**
 * Paths the UI knows, and a hook that follows the address bar (History API; the server
 * answers every such path with index.html). No router library: five routes.
 */
import { useSyncExternalStore } from 'react';

export type Route =
  | { name: 'home' }
  | { name: 'session'; sessionId: string }
  | { name: 'project'; projectId: string }
  | { name: 'search' }
  | { name: 'blame'; projectId: string }
  | { name: 'notFound'; path: string };

export function parseRoute(pathname: string): Route {
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) return { name: 'home' };
  if (parts.length === 1 && parts[0] === 'search') return { name: 'search' };
  if (parts.length === 2 && parts[0] === 'sessions') return { name: 'session', sessionId: parts[1]! };
  if (parts.length === 2 && parts[0] === 'projects') return { name: 'project', projectId: parts[1]! };
  if (parts.length === 3 && parts[0] === 'projects' && parts[2] === 'blame') return { name: 'blame', projectId: parts[1]! };
  return { name: 'notFound', path: pathname };
}

export const sessionPath = (sessionId: string) => `/sessions/${encodeURIComponent(sessionId)}`;
export const projectPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}`;
/** Which turn wrote each line of `path` in a project, at `rev` (a commit sha; HEAD when left out). */
export function blamePath(projectId: string, path: string, rev?: string | null): string {
  const params = new URLSearchParams({ path });
  if (rev) params.set('rev', rev);
  return `${projectPath(projectId)}/blame?${params.toString()}`;
}

/** The search page for `query`, with the filters given (empty ones left out). */
export function searchPath(query: string, filters: Record<string, string> = {}): string {
  const params = new URLSearchParams({ q: query });
  for (const [name, value] of Object.entries(filters)) if (value !== '') params.set(name, value);
  return `/search?${params.toString()}`;
}

const CHANGE = 'entity-memory:navigate';

export function navigate(path: string): void {
  if (path === window.location.pathname) return;
  window.history.pushState(null, '', path);
  window.dispatchEvent(new Event(CHANGE));
}

/**
 * Sets (or, with null, removes) query parameters of the current address without a new history
 * entry: where a page is within itself (the viewed turn of a session), kept for a reload or a
 * copied link, never a Back step per turn.
 */
export function replaceSearch(params: Record<string, string | null>): void {
  const url = new URL(window.location.href);
  for (const [name, value] of Object.entries(params)) {
    if (value === null) url.searchParams.delete(name);
    else url.searchParams.set(name, value);
  }
  if (url.search === window.location.search) return;
  window.history.replaceState(null, '', `${url.pathname}${url.search}${url.hash}`);
  window.dispatchEvent(new Event(CHANGE));
}

/** The current address's query parameters, followed as they change. */
export function useSearch(): URLSearchParams {
  const search = useSyncExternalStore(subscribe, () => window.location.search);
  return new URLSearchParams(search);
}

function subscribe(callback: () => void): () => void {
  window.addEventListener('popstate', callback);
  window.addEventListener(CHANGE, callback);
  return () => {
    window.removeEventListener('popstate', callback);
    window.removeEventListener(CHANGE, callback);
  };
}

export function usePathname(): string {
  return useSyncExternalStore(subscribe, () => window.location.pathname);
}
