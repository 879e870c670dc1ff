/** `entity-memory export` and `import bundle`: one session as one file, and back on another machine. */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { isValidId } from '../ids.js';
import { CannotRun } from './errors.js';
import { answeredInfo, COMMON_LINES, DATA_DIR_LINE } from './help.js';
import { assertSessionIds, bytesText, maintenanceArgs, withDataDir } from './maintenance.js';

const EXPORT_HELP = `usage: entity-memory export SESSION --out FILE [--data-dir DIR]

Writes one session to one file: its database rows (rows.jsonl: the session, its branches,
messages and turns) and its repo as a git bundle (repo.bundle: every branch and commit), with a
manifest of checksums (manifest.json), as a tar archive (tar tf FILE lists them). An archived
session is exported from its archive. entity-memory import bundle FILE recreates it elsewhere.
Takes the data dir's lock, so it is refused while a server runs on it (the rows and the repo
are read as one moment).

  --out FILE       where to write it (replaced if it exists; written beside it first)
${DATA_DIR_LINE}
${COMMON_LINES}

Exit status: 0 written; 2 when it could not run (bad flag, unknown session, data dir in use),
with one line on stderr.`;

const IMPORT_BUNDLE_HELP = `usage: entity-memory import bundle FILE [--project ID] [--data-dir DIR]

Recreates the session a file of entity-memory export holds: the same commits (same shas),
branches, HEAD and messages. Every part is checked against the file's checksums before anything
is written; a file that is truncated, changed, or written by a newer entity-memory is refused in
one line, with nothing written. A session this data dir already has is left as it is (importing
the same file twice changes nothing). Projects are not moved: the session joins none unless
--project names one of this data dir's. Takes the data dir's lock, so it is refused while a
server runs on it.

  --project ID     bind the imported session to this project
${DATA_DIR_LINE}
${COMMON_LINES}

Exit status: 0 imported or already here; 2 when it could not run or the file was refused, with
one line on stderr.`;

export async function exportCommand(argv: string[]): Promise<number> {
  if (answeredInfo(argv, () => EXPORT_HELP)) return 0;
  const { values, positionals, config } = maintenanceArgs(argv, { out: { type: 'string' } }, { positionals: true });
  const [sessionId, ...rest] = positionals;
  if (sessionId === undefined || rest.length > 0) throw new CannotRun('name one session to export');
  assertSessionIds([sessionId]);
  if (typeof values.out !== 'string' || values.out === '') throw new CannotRun('say where to write it: --out FILE');
  const out = resolve(values.out);
  return withDataDir(config, 'export', async (deps) => {
    const { BundleRefusedError, exportSession } = await import('../services/sessions/portable.js');
    try {
      const manifest = await exportSession(deps, sessionId, out);
      const { size } = statSync(out);
      console.log(
        `${sessionId}: ${manifest.counts.turns} turns, ${manifest.counts.messages} messages, ${manifest.counts.branches} branches, ${manifest.repo ? Object.keys(manifest.repo.refs).length : 0} refs -> ${out} (${bytesText(size)})`,
      );
      return 0;
    } catch (error) {
      if (error instanceof BundleRefusedError) throw new CannotRun(error.message);
      throw error;
    }
  });
}

export async function importBundleCommand(argv: string[]): Promise<number> {
  if (answeredInfo(argv, () => IMPORT_BUNDLE_HELP)) return 0;
  const { values, positionals, config } = maintenanceArgs(argv, { project: { type: 'string' } }, { positionals: true });
  const [file, ...rest] = positionals;
  if (file === undefined || rest.length > 0) throw new CannotRun('name one FILE to import (written by entity-memory export)');
  const path = isAbsolute(file) ? file : resolve(file);
  const projectId = typeof values.project === 'string' ? values.project : undefined;
  if (projectId !== undefined && !isValidId(projectId)) throw new CannotRun(`${JSON.stringify(projectId.slice(0, 80))} is not a project id`);
  if (!existsSync(path)) throw new CannotRun(`no file at ${path}`);
  return withDataDir(config, 'import', async (deps) => {
    const { BundleRefusedError, importSessionBundle } = await import('../services/sessions/portable.js');
    try {
      const outcome = await importSessionBundle(deps, path, projectId !== undefined ? { projectId } : {});
      const { sessionId, counts } = outcome.manifest;
      if (outcome.imported) console.log(`${sessionId}: imported, ${counts.turns} turns, ${counts.messages} messages, ${counts.branches} branches`);
      else console.log(`${sessionId}: left as it is: ${outcome.reason}`);
      return 0;
    } catch (error) {
      if (error instanceof BundleRefusedError) throw new CannotRun(`${path}: ${error.message}; nothing was written`);
      throw error;
    }
  });
}
