/**
 * `entity-memory import chat FILE…`: each chat log (src/importers/chat/parse.ts) read whole and
 * sent as one session through an ImportTarget, summed up in the same ImportSummary as Claude Code
 * imports. One bad file never stops the others.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ImportFileError, ImportFilesOptions, ImportSummary } from './claude-code/files.js';
import { parseChatLog } from './chat/parse.js';
import type { ImportTarget, SessionImportOutcome } from './target.js';

export async function importChatFiles(target: ImportTarget, paths: readonly string[], options: ImportFilesOptions = {}): Promise<ImportSummary> {
  const summary: ImportSummary = { files: 0, sessions: 0, turns: 0, messages: 0, branches: 0, skipped: [], errors: [] };
  const skipped = new Map<string, number>();
  const sessions = new Set<string>();
  for (const [i, given] of paths.entries()) {
    const file = resolve(given);
    summary.files += 1;
    const errors: ImportFileError[] = [];
    let outcome: SessionImportOutcome | undefined;
    try {
      const parsed = parseChatLog(await readFile(file), { path: file });
      for (const problem of parsed.problems) errors.push({ file, line: problem.line, message: problem.message });
      for (const [type, count] of Object.entries(parsed.skipped)) skipped.set(type, (skipped.get(type) ?? 0) + count);
      if (parsed.session.id === null) {
        errors.push({ file, line: 0, message: 'no session id: name the file <id>.jsonl or give a {"session": {"id": …}} header line; file skipped' });
      } else {
        outcome = await target.importSession({
          source: 'chat',
          session: parsed.session,
          messages: parsed.messages,
          updates: parsed.updates,
          newestLeafId: parsed.newestLeafId,
          closeLastTurn: true,
        });
        sessions.add(outcome.sessionId);
        summary.turns += outcome.turnsAdded;
        summary.messages += outcome.messagesAdded;
        summary.branches += outcome.branchesCreated.length;
        for (const problem of outcome.problems) errors.push({ file, line: problem.line, message: problem.message });
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      errors.push({ file, line: 0, message: code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a folder, not a chat log' : (error as Error).message });
    }
    summary.errors.push(...errors);
    options.onProgress?.({ file, index: i + 1, total: paths.length, ...(outcome ? { outcome } : {}), errors });
  }
  summary.sessions = sessions.size;
  summary.skipped = [...skipped.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([type, count]) => ({ type, count }));
  return summary;
}
