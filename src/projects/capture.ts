/**
 * The agent's end-of-turn state, taken in the closing request: which dirty
 * paths are the agent's (src/projects/ownership.ts) and their content, hashed
 * into the repo's object store there and then. The commit made later in the
 * background is built from these blobs, so nothing written after the close
 * (the user's next edit, the agent's next turn) can end up in it.
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { byPath, type FileState } from '../git/project-plumbing.js';
import type { ProjectRepo } from '../git/project-repo.js';
import { splitAtClose, touchedPath } from './ownership.js';
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
  /** See CloseInput.carried. */
  carried?: readonly string[];
}

/** What the close's status already told about HEAD (`ProjectRepo.statusWithHead`). */
export interface HeadAtClose {
  headSha: string | null;
  /** HEAD's entry per dirty path (null: not in HEAD); a path missing here is looked up. */
  headEntries: ReadonlyMap<string, { mode: string; oid: string } | null>;
}

/**
 * The paths worth hashing while the close's status runs (`earlyPaths`): each file the turn said
 * it wrote (touchedPaths) that was not dirty as the turn began, since those are the agent's
 * whenever status finds them changed. A dirty-at-start path is the user's unless a skipped turn
 * carried it, which takes a read to tell: it waits for status, so no content of the user's is
 * hashed into the repo. A folder among them is left out by the hashing itself.
 */
export function earlyPaths(touched: readonly string[] | null, dirtyAtStart: readonly string[]): string[] {
  if (!touched) return [];
  const atStart = new Set(dirtyAtStart);
  const paths = touched.map(touchedPath).filter((p) => p !== '' && !atStart.has(p));
  return [...new Set(paths)];
}

/**
 * @param top the real path of the working tree's top.
 * @param gitDir its git directory (where the files are copied to be hashed).
 * @param known HEAD and its entries as the close's status read them.
 * @param hashed states of paths hashed already, beside the status (`earlyPaths`): an agent's
 *   path among them is not hashed again.
 * @throws GitError when git cannot hash the files (the caller records the turn without a capture).
 */
export async function captureTurnEnd(
  repo: ProjectRepo,
  top: string,
  gitDir: string,
  input: CaptureInput,
  known: HeadAtClose,
  hashed: readonly FileState[] = [],
): Promise<TurnCapture> {
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
  const headSha = known.headSha;
  const early = new Map(hashed.map((state) => [state.path, state]));
  const rest = split.agent.filter((p) => !early.has(p));
  const states = [...split.agent.flatMap((p) => early.get(p) ?? []), ...(rest.length > 0 ? await repo.captureFileStates(top, gitDir, rest) : [])].sort(byPath);
  // HEAD's entries for the agent's paths: from the status when it told them, else (an unmerged path) one ls-tree.
  const unknown = states.map((s) => s.path).filter((p) => !known.headEntries.has(p));
  const looked = await repo.entriesAt(headSha, unknown);
  const files = states.map((s) => {
    const b = known.headEntries.has(s.path) ? known.headEntries.get(s.path) : looked.get(s.path);
    return { ...s, baseMode: b?.mode ?? null, baseOid: b?.oid ?? null };
  });
  return { headAtClose: headSha, files, suspects: split.suspects };
}
