/**
 * The agent's end-of-turn state, taken in the closing request: which dirty
 * paths are the agent's (src/projects/ownership.ts) and their content, hashed
 * into the repo's object store there and then. The commit made later in the
 * background is built from these blobs, so nothing written after the close
 * (the user's next edit, the agent's next turn) can end up in it.
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { captureFileStates, entriesAt, readHead, type ProjectGitRun } from '../git/project-plumbing.js';
import { splitAtClose } from './ownership.js';
import type { RecordedState } from './restore-plan.js';

export interface TurnCapture {
  /** HEAD's commit as the turn closed (null: no commit yet). */
  headAtClose: string | null;
  /** The agent's paths as it left them, with what HEAD held for each. */
  files: RecordedState[];
  /** Other dirty paths: the user's, unless claimed by another agent turn or clean again at commit time. */
  suspects: string[];
}

export interface CaptureInput {
  touched: readonly string[] | null;
  dirtyAtStart: readonly string[];
  dirtyAtClose: readonly string[];
  /** When the turn began, if the runtime said so (recordTurn's startedAt). */
  startedAt: Date | null;
}

/**
 * @param top the real path of the working tree's top.
 * @throws GitError when git cannot hash the files (the caller records the turn without a capture).
 */
export async function captureTurnEnd(run: ProjectGitRun, top: string, input: CaptureInput): Promise<TurnCapture> {
  const changedBeforeStart: string[] = [];
  if (!input.touched && input.startedAt) {
    const atStart = new Set(input.dirtyAtStart);
    const startedMs = input.startedAt.getTime();
    for (const path of input.dirtyAtClose) {
      if (atStart.has(path)) continue;
      const info = await lstat(join(top, path)).catch(() => null);
      if (info && info.mtimeMs < startedMs) changedBeforeStart.push(path);
    }
  }
  const split = splitAtClose({ ...input, changedBeforeStart });
  const [head, states] = await Promise.all([readHead(run), captureFileStates(run, top, split.agent)]);
  const base = await entriesAt(run, head.sha, states.map((s) => s.path));
  const files = states.map((s) => {
    const b = base.get(s.path);
    return { ...s, baseMode: b?.mode ?? null, baseOid: b?.oid ?? null };
  });
  return { headAtClose: head.sha, files, suspects: split.suspects };
}
