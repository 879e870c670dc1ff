import type { Turn } from '../../generated/prisma/client.js';
import { BadUserInputError } from '../../errors.js';
import { assertValidId } from '../../ids.js';
import type { Deps } from '../deps.js';
import type { TurnClose } from './session-writer.js';
import { assertNonNegativeInt } from './validate.js';
import { closeTurnWith } from './close-turn.js';

export interface EndTurnInput extends TurnClose {
  sessionId: string;
}

/**
 * Checks the turn's figures and reported paths. Paths are relative to the
 * project's working directory and never leave it.
 */
export function validateTurnClose(close: TurnClose, field = ''): TurnClose {
  const at = (name: string) => (field ? `${field}.${name}` : name);
  assertNonNegativeInt(close.durationMs, at('durationMs'));
  assertNonNegativeInt(close.tokens, at('tokens'));
  const paths = close.touchedPaths ?? null;
  if (paths) {
    if (paths.length > 10_000) throw new BadUserInputError(`${at('touchedPaths')} lists more than 10,000 paths.`);
    for (const path of paths) {
      const segments = path.split(/[\\/]/);
      if (
        path === '' ||
        path.startsWith('/') ||
        /^[A-Za-z]:/.test(path) ||
        path.includes('\0') ||
        segments.includes('..') ||
        segments[0] === '.git' ||
        path.length > 4096
      ) {
        throw new BadUserInputError(
          `${at('touchedPaths')} has ${JSON.stringify(path)}: give paths relative to the project's working directory, without '..' or .git.`,
          { field: at('touchedPaths') },
        );
      }
    }
  }
  const startedAt = close.startedAt ?? null;
  if (startedAt && (Number.isNaN(startedAt.getTime()) || startedAt.getTime() > Date.now() + 60_000)) {
    throw new BadUserInputError(`${at('startedAt')} is in the future; give the time the turn's user message arrived.`, { field: at('startedAt') });
  }
  return { durationMs: close.durationMs ?? null, tokens: close.tokens ?? null, touchedPaths: paths, startedAt };
}

/** Closes the open turn; its git commits follow in the background. */
export async function endTurn(input: EndTurnInput, deps: Deps): Promise<Turn> {
  assertValidId(input.sessionId, 'sessionId');
  const close = validateTurnClose(input);
  return closeTurnWith(deps, input.sessionId, close, async () => {});
}
