/**
 * The browser boundary: which `Host` names and which `Origin`s this server answers to. Pure
 * functions of the configuration and the request's two headers, shared by the HTTP gate, the
 * WebSocket upgrade and yoga's CORS headers.
 *
 * Why these two checks, and why they are enough together:
 * - a web page on another site sends its own origin in `Origin` on every POST, every CORS
 *   request and every WebSocket upgrade, so refusing foreign origins stops cross-site writes;
 * - DNS rebinding makes the attacker's page same-origin with us (its name now resolves to
 *   127.0.0.1), but the browser still sends the attacker's name in `Host`. Only names we were
 *   told about are accepted; IP literals are safe because rebinding needs a name to re-resolve,
 *   and a page whose address bar shows an IP is served from that IP, i.e. by us.
 */
import { isIP } from 'node:net';
import type { Config } from '../config.js';

/** What the checks need from the configuration. */
export type BoundaryConfig = Pick<Config, 'host' | 'allowedOrigins' | 'publicUrl'>;

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `[::1]` → `::1`; names and IPv4 unchanged. */
function bare(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** True for `localhost`, 127.0.0.0/8, `::1` and IPv4-mapped loopback, bracketed or not. */
export function isLoopbackHost(host: string): boolean {
  const h = bare(host.toLowerCase());
  if (h === 'localhost' || h === '::1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/** A `Host` header as a URL (port normalised, IPv6 bracketed), or undefined when it is not one. */
function parseHost(header: string): URL | undefined {
  // No userinfo, path or query characters: what is left is host[:port].
  if (!/^[A-Za-z0-9.:[\]_-]+$/.test(header)) return undefined;
  try {
    return new URL(`http://${header}`);
  } catch {
    return undefined;
  }
}

/** An `Origin` header as a URL, or undefined for `null`, paths, or anything malformed. */
function parseOrigin(header: string): URL | undefined {
  try {
    const url = new URL(header);
    // Browsers send the serialised origin exactly; anything else did not come from one.
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === header ? url : undefined;
  } catch {
    return undefined;
  }
}

const namesByConfig = new WeakMap<BoundaryConfig, Set<string>>();

/** Host names (not IP literals) this server answers to, lower case; computed once per config. */
function knownNames(config: BoundaryConfig): Set<string> {
  const known = namesByConfig.get(config);
  if (known) return known;
  const names = new Set(['localhost']);
  if (isIP(bare(config.host)) === 0) names.add(config.host.toLowerCase());
  for (const origin of [...(config.allowedOrigins ?? []), ...(config.publicUrl ? [config.publicUrl] : [])]) {
    names.add(new URL(origin).hostname.toLowerCase());
  }
  namesByConfig.set(config, names);
  return names;
}

/**
 * Whether a request's `Host` is one this server answers to: any IP literal, `localhost`, the
 * `--host` name, and the hostnames of `--public-url` and `--allowed-origin`. A request without
 * `Host` (HTTP/1.0 tools) passes: browsers always send one, and rebinding needs a browser.
 */
export function hostAllowed(config: BoundaryConfig, hostHeader: string | undefined): boolean {
  if (hostHeader === undefined) return true;
  const url = parseHost(hostHeader);
  if (!url) return false;
  return isIP(bare(url.hostname)) !== 0 || knownNames(config).has(url.hostname.toLowerCase());
}

/**
 * Whether a browser page at `originHeader` may use this server. No `Origin` (curl, scripts,
 * navigations) passes. Allowed: the configured origins (`--allowed-origin`, `--public-url`);
 * the server's own origin, i.e. `http://` plus the request's `Host` (already checked by
 * hostAllowed, so a rebinding name never gets here); and, when that Host is a loopback name,
 * the other loopback spellings with the same port (`localhost`, `127.0.0.1`, `[::1]`). Every
 * other origin, including `null` (sandboxed frames, file://), is foreign.
 */
export function originAllowed(config: BoundaryConfig, originHeader: string | undefined, hostHeader: string | undefined): boolean {
  if (originHeader === undefined) return true;
  const origin = parseOrigin(originHeader);
  if (!origin) return false;
  if ((config.allowedOrigins ?? []).includes(origin.origin) || config.publicUrl === origin.origin) return true;
  const host = hostHeader === undefined ? undefined : parseHost(hostHeader);
  if (!host || origin.protocol !== 'http:') return false;
  if (origin.host === host.host) return true;
  return LOOPBACK_NAMES.has(origin.hostname) && LOOPBACK_NAMES.has(host.hostname) && origin.port === host.port;
}

/** The message a refused browser gets: what was refused and the flag that would allow it. */
export function foreignOriginMessage(originHeader: string): string {
  return `Requests from the web page at ${JSON.stringify(originHeader)} are refused: only this server's own pages may use it. To allow that origin, start the server with --allowed-origin ${originHeader}.`;
}

export function unknownHostMessage(hostHeader: string): string {
  return `This server does not answer to the name ${JSON.stringify(hostHeader)} (a guard against DNS rebinding). Use its IP address or localhost, or start it with --public-url http://${hostHeader}.`;
}
