/**
 * Caps on WebSocket connections, so idle sockets cannot use up the process's file descriptors
 * (about 19,800 did, and then the HTTP port refused everyone). A socket over a cap is accepted
 * and closed at once with WS_CLOSE_TOO_MANY and a reason saying which cap, so the HTTP port
 * itself keeps answering and the client learns why.
 */
import { DEFAULT_MAX_WS_CONNECTIONS, DEFAULT_MAX_WS_PER_ADDRESS, type Config } from '../config.js';

/** Close code for a connection over a cap (4xxx is the application range; 429 as in HTTP). */
export const WS_CLOSE_TOO_MANY = 4429;
/** graphql-ws's own code for a refused `connection_init` (here: missing or wrong token). */
export const WS_CLOSE_FORBIDDEN = 4403;

/** `::ffff:127.0.0.1` and `127.0.0.1` are one client. */
export function normaliseAddress(address: string | undefined): string {
  if (!address) return 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

export class ConnectionLimits {
  readonly maxTotal: number;
  readonly maxPerAddress: number;
  private total = 0;
  private readonly perAddress = new Map<string, number>();

  constructor(config: Pick<Config, 'maxWsConnections' | 'maxWsPerAddress'>) {
    this.maxTotal = config.maxWsConnections ?? DEFAULT_MAX_WS_CONNECTIONS;
    this.maxPerAddress = config.maxWsPerAddress ?? DEFAULT_MAX_WS_PER_ADDRESS;
  }

  /**
   * Takes a slot for a connection from `address`.
   * @returns undefined when admitted (call release once it closes), else the close reason.
   */
  admit(address: string): string | undefined {
    if (this.total >= this.maxTotal) return `too many connections: the server takes ${this.maxTotal}`;
    const mine = this.perAddress.get(address) ?? 0;
    if (mine >= this.maxPerAddress) return `too many connections from ${address}: ${this.maxPerAddress} at most`;
    this.total += 1;
    this.perAddress.set(address, mine + 1);
    return undefined;
  }

  release(address: string): void {
    this.total -= 1;
    const left = (this.perAddress.get(address) ?? 1) - 1;
    if (left > 0) this.perAddress.set(address, left);
    else this.perAddress.delete(address);
  }

  /** Connections holding a slot now. */
  get open(): number {
    return this.total;
  }
}

/** Connections one address may hold beyond its WebSockets: plain requests (a browser keeps 6 per origin, a hook 1). */
export const HTTP_CONNECTIONS_BEYOND_WS = 64;
/** How long a request's headers may take to arrive (Node's default is 60 s): a slow-header client lets go sooner. */
export const HEADERS_TIMEOUT_MS = 15_000;

/**
 * Caps the TCP connections of the HTTP port per remote address, WebSockets included, at the
 * WebSocket cap plus HTTP_CONNECTIONS_BEYOND_WS: idle or slow-header connections from one peer
 * (1,500 of them held 45 s before) cannot use up the file descriptors. A connection over the cap
 * gets a 503 saying why, and is closed.
 */
export function capHttpConnections(
  http: import('node:http').Server,
  config: Pick<Config, 'maxWsPerAddress'>,
  onRefused: (address: string, reason: string) => void,
): void {
  const limits = new ConnectionLimits({
    maxWsConnections: Number.MAX_SAFE_INTEGER,
    maxWsPerAddress: (config.maxWsPerAddress ?? DEFAULT_MAX_WS_PER_ADDRESS) + HTTP_CONNECTIONS_BEYOND_WS,
  });
  http.headersTimeout = HEADERS_TIMEOUT_MS;
  // Told once per address while it stays at its cap, not once per refused connection.
  const told = new Set<string>();
  http.on('connection', (socket: import('node:net').Socket) => {
    const address = normaliseAddress(socket.remoteAddress);
    const over = limits.admit(address);
    if (over) {
      if (!told.has(address)) onRefused(address, over);
      told.add(address);
      const body = `${over}; close some and try again\n`;
      socket.end(`HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      return;
    }
    socket.once('close', () => {
      limits.release(address);
      told.delete(address);
    });
  });
}
