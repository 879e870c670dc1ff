/**
 * Paths the UI knows, and a hook that follows the address bar (History API; the server
 * answers every such path with index.html). No router library: three routes.
 */
import { useSyncExternalStore } from 'react';

export type Route =
  | { name: 'home' }
  | { name: 'session'; sessionId: string }
  | { name: 'project'; projectId: string }
  | { name: 'notFound'; path: string };

export function parseRoute(pathname: string): Route {
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) return { name: 'home' };
  if (parts.length === 2 && parts[0] === 'sessions') return { name: 'session', sessionId: parts[1]! };
  if (parts.length === 2 && parts[0] === 'projects') return { name: 'project', projectId: parts[1]! };
  return { name: 'notFound', path: pathname };
}

export const sessionPath = (sessionId: string) => `/sessions/${encodeURIComponent(sessionId)}`;
export const projectPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}`;

const CHANGE = 'entity-memory:navigate';

export function navigate(path: string): void {
  if (path === window.location.pathname) return;
  window.history.pushState(null, '', path);
  window.dispatchEvent(new Event(CHANGE));
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
