/**
 * The server's token, when it requires one (ui.md): taken once from the URL fragment
 * `#token=…`, kept in sessionStorage, and removed from the address bar so it is not
 * bookmarked, shared or left in the history.
 */
const KEY = 'entity-memory.token';

export function takeTokenFromLocation(location: Location = window.location, history: History = window.history): void {
  const match = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (!match) return;
  const token = decodeURIComponent(match[1] ?? '');
  if (token) sessionStorage.setItem(KEY, token);
  const rest = location.hash.replace(/(?:^#|&)token=[^&]*/, '').replace(/^&/, '');
  history.replaceState(history.state, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`);
}

export function currentToken(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}
