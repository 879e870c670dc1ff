/**
 * A slow or stuck WebSocket never holds up anyone else. graphql-ws waits for each frame to be
 * written before it takes a subscription's next event, so a peer that stops reading would
 * otherwise pile that subscription's events up in the server (unbounded) and keep one frame
 * waiting per operation forever. Instead a frame is handed to `ws` at once and the socket's
 * backlog (`bufferedAmount`: bytes `ws` and the kernel have not sent yet) is bounded: a socket
 * whose backlog is over the cap when its next frame comes is closed with WS_CLOSE_TOO_SLOW and
 * a log line, and cut off if it does not take the close frame either. Its events are dropped
 * with it; a client reconnects (1013 is "try again later", which graphql-ws clients retry) and
 * reloads what it shows, as the web UI does after any dropped socket.
 */
import WebSocket from 'ws';
import type { Logger } from '../logger.js';

/** Close code for a socket that fell too far behind: "Try Again Later" (RFC 6455 registry). */
export const WS_CLOSE_TOO_SLOW = 1013;
/** A socket over the cap that does not read our close frame is cut off after this long. */
const TOO_SLOW_CLOSE_GRACE_MS = 2_000;

/**
 * Makes `socket.send` return at once (the callback is called before the frame is written) and
 * closes the socket once more than `maxBufferedBytes` wait to be sent. A single frame is sent
 * whatever its size while the backlog is under the cap, so the cap should be at least the
 * largest frame a healthy client is sent (see Config.maxWsBufferedBytes). A message sent in
 * fragments (`fin: false` until its last) is checked at its first fragment and then sent whole.
 */
export function boundSendBuffer(socket: WebSocket, maxBufferedBytes: number, logger: Logger, address: string): void {
  const send = socket.send.bind(socket) as (data: unknown, options: object, cb: (err?: Error) => void) => void;
  let closing = false;
  // Inside a message sent in fragments (src/http/fan-out.ts): the backlog was checked at its first.
  let midMessage = false;
  const replacement = (data: unknown, optionsOrCallback?: object | ((err?: Error) => void), callback?: (err?: Error) => void): void => {
    const cb = typeof optionsOrCallback === 'function' ? optionsOrCallback : callback;
    const options = typeof optionsOrCallback === 'object' && optionsOrCallback !== null ? optionsOrCallback : {};
    if (socket.readyState !== WebSocket.OPEN || closing) {
      cb?.();
      return;
    }
    const first = !midMessage;
    midMessage = (options as { fin?: boolean }).fin === false;
    const backlog = socket.bufferedAmount;
    if (first && backlog > maxBufferedBytes) {
      closing = true;
      logger.warn(
        { address, bufferedBytes: backlog, maxBufferedBytes, code: WS_CLOSE_TOO_SLOW },
        'closing a WebSocket that fell behind: more unsent bytes than the cap; its events are dropped',
      );
      socket.close(WS_CLOSE_TOO_SLOW, 'Too slow: the events sent to this connection were not read; reconnect');
      const cutOff = setTimeout(() => socket.terminate(), TOO_SLOW_CLOSE_GRACE_MS);
      socket.once('close', () => clearTimeout(cutOff));
      cb?.();
      return;
    }
    // A write error closes the socket, which graphql-ws hears of through 'close'.
    send(data, options, (err) => {
      if (err) logger.debug({ err, address }, 'WebSocket write failed');
    });
    cb?.();
  };
  socket.send = replacement as typeof socket.send;
}
