import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

/** A pino logger at `info` whose JSON lines the test can read, parsed, in the order written. */
export function capturedLogger<Line = Record<string, unknown>>(): { logger: Logger; lines: Line[] } {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Line);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}
