/**
 * One structured logger (pino: JSON lines, cheap when a level is off).
 */
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'entity-memory' } });
}
