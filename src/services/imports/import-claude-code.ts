/**
 * importClaudeCode (the UI's import): Claude Code transcripts on the server's
 * disk, each path inside the allowed roots like a project's workdir, imported
 * in-process with importClaudeCodeFiles.
 */
import { realpath } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { BadUserInputError, ForbiddenError } from '../../errors.js';
import { importClaudeCodeFiles } from '../../importers/claude-code/files.js';
import type { ImportSummary } from '../../importers/import-files.js';
import { insideRoots, realRoots } from '../../projects/workdir.js';
import type { Deps } from '../deps.js';
import { serviceImportTarget } from './import-session.js';

export interface ImportClaudeCodeInput {
  paths: readonly string[];
}

const MAX_PATHS = 1000;

/**
 * @throws BadUserInputError for no paths, a relative or missing path; ForbiddenError for one
 * outside the allowed roots (or inside the data directory). Nothing is imported then.
 */
export async function importClaudeCode(input: ImportClaudeCodeInput, deps: Deps): Promise<ImportSummary> {
  if (input.paths.length === 0) throw new BadUserInputError('Give at least one path: a transcript file or a folder of them.', { field: 'paths' });
  if (input.paths.length > MAX_PATHS) throw new BadUserInputError(`Give at most ${MAX_PATHS} paths.`, { field: 'paths' });
  const reals: string[] = [];
  for (const [i, path] of input.paths.entries()) {
    const field = `paths[${i}]`;
    if (path.includes('\0') || path.length > 4096 || !isAbsolute(path)) {
      throw new BadUserInputError(`${field} must be an absolute path, like /home/you/.claude/projects; got ${JSON.stringify(path.slice(0, 200))}.`, { field });
    }
    let real: string;
    try {
      real = await realpath(path);
    } catch {
      throw new BadUserInputError(`${field} ${path} does not exist.`, { field });
    }
    if (!insideRoots(real, deps.config)) {
      throw new ForbiddenError(
        `${field} ${real} is outside the server's allowed roots (${realRoots(deps.config).join(', ')}) or inside its data directory; start the server with --allowed-root to allow it.`,
        { field },
      );
    }
    reals.push(real);
  }
  // Folders are walked without following symbolic links, so nothing outside the checked paths is read.
  return importClaudeCodeFiles(serviceImportTarget(deps), reals);
}
