/** `entity-memory import claude-code|codex|gemini --follow`: transcripts imported as they are written. */
import type { FollowFormat } from '../importers/follow-format.js';
import type { ImportFileError } from '../importers/import-files.js';
import type { SessionImportOutcome } from '../importers/target.js';
import { exitFor, filesWithErrors } from './errors.js';
import type { ImportSink } from './import-sink.js';

/** `import … --follow`: imports as the transcripts grow, one line per batch, until SIGINT or SIGTERM; `format` default Claude Code's. */
export async function followCommand(sink: ImportSink, paths: string[], format?: FollowFormat): Promise<number> {
  const { followUntilSignal } = await import('../importers/follow.js');
  const sessions = new Set<string>();
  const files = new Set<string>();
  const errors: ImportFileError[] = [];
  const totals = { turns: 0, messages: 0, branches: 0 };
  const add = (outcome: SessionImportOutcome) => {
    sessions.add(outcome.sessionId);
    totals.turns += outcome.turnsAdded;
    totals.messages += outcome.messagesAdded;
    totals.branches += outcome.branchesCreated.length;
  };
  console.error(`entity-memory: following ${paths.join(', ')} into the ${sink.via}; SIGINT or SIGTERM stops`);
  await followUntilSignal({
    target: sink.target,
    paths,
    ...(format ? { format } : {}),
    onBatch: ({ file, outcome }) => {
      files.add(file);
      add(outcome);
      if (outcome.messagesAdded + outcome.messagesUpdated + outcome.turnsAdded > 0) {
        console.log(`${file}\t${outcome.sessionId}\t+${outcome.messagesAdded} messages\t+${outcome.turnsAdded} turns\t${outcome.currentBranch}`);
      }
    },
    onProblem: (file, problem) => {
      files.add(file);
      if (problem.severity === 'info') {
        console.log(`${file}:${problem.line}: note: ${problem.message}`);
        return;
      }
      errors.push({ file, line: problem.line, message: problem.message });
      console.log(`${file}:${problem.line}: ${problem.message}`);
    },
  });
  await sink.settle(sessions);
  console.log(`${files.size} files followed, ${sessions.size} sessions, ${totals.turns} turns, ${totals.messages} messages, ${totals.branches} branches, ${filesWithErrors(errors)} files with errors`);
  return exitFor(filesWithErrors(errors));
}
