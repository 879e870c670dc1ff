/**
 * Codex CLI rollouts on disk: finding them (a file as it is, a folder searched recursively for
 * `rollout-*.jsonl`, as `$CODEX_HOME/sessions/YYYY/MM/DD/` holds them) and importing each through
 * the import loop (../import-files.ts).
 */
import { importFiles, type ImportFileError, type ImportFilesOptions, type ImportFormat, type ImportSummary } from '../import-files.js';
import type { FollowFormat } from '../follow-format.js';
import type { ImportTarget } from '../target.js';
import { feedLines } from '../feed-lines.js';
import type { ImportResult } from '../model.js';
import { STALE_CLOSE_MS } from '../turn-end.js';
import { describeFileError, walkFiles } from '../walk-files.js';
import { CodexRollout } from './rollout.js';

/** Ended turns, by parsed result: whether the rollout's last turn reached its task_complete. */
const lastTurnEnded = new WeakMap<ImportResult, boolean>();

export const ROLLOUT: ImportFormat = {
  source: 'codex',
  parse: async (reader, path) => {
    const rollout = new CodexRollout({ path });
    const batch = await feedLines(reader, rollout);
    const result: ImportResult = {
      ...batch,
      session: rollout.session(),
      skipped: rollout.skipped,
      newestLeafId: rollout.newestLeafId(),
      consumedBytes: reader.consumedBytes,
      nextLine: reader.nextLine,
      records: rollout.records,
    };
    // An older rollout says nowhere where a turn ends: its last turn is over with the file.
    lastTurnEnded.set(result, rollout.lastTurnEnded() || !rollout.marksTurnEnds());
    return result;
  },
  withoutSession: (parsed) => (parsed.messages.length > 0 ? 'no session_meta says which session this is; file skipped' : undefined),
  describeError: describeFileError,
  // A Codex turn is over at its task_complete; one still running stays open until the file is quiet long enough.
  closesLastTurn: (parsed, quietMs) => lastTurnEnded.get(parsed) === true || quietMs >= STALE_CLOSE_MS,
};

/** `import codex --follow`: rollouts read as Codex writes them; a turn closes at its task_complete. */
export const ROLLOUT_FOLLOW: FollowFormat = {
  source: 'codex',
  walk: (paths) => walkRollouts(paths),
  parser: (path) => new CodexRollout({ path }),
};

/** The rollouts `paths` name, sorted by path (so by date within the sessions folder), each once; paths that could not be read as errors. */
export async function walkRollouts(paths: readonly string[]): Promise<{ files: string[]; errors: ImportFileError[] }> {
  const { files, errors } = await walkFiles(paths, (path) => /(^|[\\/])rollout-[^\\/]*\.jsonl$/.test(path));
  return { files: files.sort(), errors };
}

/** Imports every rollout `paths` names into `target`, each whole; never throws for one file's sake. */
export async function importCodexFiles(target: ImportTarget, paths: readonly string[], options: ImportFilesOptions = {}): Promise<ImportSummary> {
  const walk = await walkRollouts(paths);
  return importFiles(target, ROLLOUT, walk.files, options, walk.errors);
}
