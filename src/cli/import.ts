/** `entity-memory import claude-code|codex|gemini|chat`: transcripts into sessions, through a running server or in-process. */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import type { FollowFormat } from '../importers/follow-format.js';
import type { ImportSummary } from '../importers/import-files.js';
import { IMPORT_SOURCES, isImportSource, type ImportSource } from '../importers/target.js';
import { CannotRun, exitFor, filesWithErrors } from './errors.js';
import { followCommand } from './follow.js';
import { answeredInfo, COMMON_LINES, DATA_DIR_LINE } from './help.js';
import { openImportSink } from './import-sink.js';

const IMPORT_HELP = `usage: entity-memory import claude-code [PATH…] [--follow] [--data-dir DIR]
       entity-memory import codex [PATH…] [--follow] [--data-dir DIR]
       entity-memory import gemini [PATH…] [--follow] [--data-dir DIR]
       entity-memory import chat FILE… [--data-dir DIR]
       entity-memory import bundle FILE [--project ID] [--data-dir DIR]   (see import bundle --help)

Imports agent transcripts as sessions: one transcript, one session (its id the agent's own
session id), one commit per turn in the session's repo. claude-code reads *.jsonl files, and
folders searched for them (default ~/.claude/projects); codex reads Codex CLI rollouts, folders
searched for rollout-*.jsonl (default $CODEX_HOME/sessions, else ~/.codex/sessions); gemini
reads Gemini CLI chat files, folders searched for the files under their chats/ folders (default
~/.gemini/tmp). A sub-agent's transcript becomes its own session linked to its parent. Importing
again adds only what is new. When a server runs on the data dir the
import goes through it (its URL is in <data-dir>/server.json; the token from ENTITY_MEMORY_TOKEN,
else <data-dir>/token); otherwise the data dir is opened here, holding its lock, and the command
waits until the session repos hold what was imported.

  --follow             keep following the files and folders: new lines are imported as they are
                       written (a new transcript in a followed folder too), until SIGINT or SIGTERM
${DATA_DIR_LINE}
${COMMON_LINES}

Prints a progress bar on stderr when it is a terminal, then a summary on stdout: files,
sessions, turns, messages, branches, records skipped by type, each note as file:line: note: message
(something unusual handled, such as a sub-agent's transcript continuing its parent's records; not an
error), and each error as file:line: message.

Exit status: 0 every file imported without error; 1 to 125 the number of files with errors
(125: that many or more); 2 when it could not run (bad flag, data dir in use by a command other
than serve, server not reachable), with one line on stderr.`;

/** The progress of an import on stderr when it is a terminal: files done / total, sessions, turns. */
function importProgress(): { file(done: number, total: number, sessions: number, turns: number): void; end(): void } {
  if (!process.stderr.isTTY) return { file: () => {}, end: () => {} };
  let shown = false;
  return {
    file: (done, total, sessions, turns) => {
      const width = 30;
      const filled = total === 0 ? width : Math.round((done / total) * width);
      process.stderr.write(`\rimport [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${done}/${total} files, ${sessions} sessions, ${turns} turns`);
      shown = true;
    },
    end: () => {
      if (shown) process.stderr.write('\n');
    },
  };
}

/** The summary of an import on stdout. */
function printImportSummary(summary: ImportSummary): void {
  console.log(`files\t${summary.files}`);
  console.log(`sessions\t${summary.sessions}`);
  console.log(`turns\t${summary.turns}`);
  console.log(`messages\t${summary.messages}`);
  console.log(`branches\t${summary.branches}`);
  console.log(`skipped\t${summary.skipped.length === 0 ? 'none' : summary.skipped.map((s) => `${s.type} ${s.count}`).join(', ')}`);
  for (const note of summary.notes) console.log(`${note.file}:${note.line}: note: ${note.message}`);
  for (const error of summary.errors) console.log(`${error.file}:${error.line}: ${error.message}`);
  const failed = filesWithErrors(summary.errors);
  console.log(`${summary.files} files imported, ${failed} with errors`);
}

/** Where each agent keeps its transcripts when no PATH is given, and what to call them in an error. */
function defaultPaths(kind: 'claude-code' | 'codex' | 'gemini', home: string, env: NodeJS.ProcessEnv): { path: string; what: string } {
  if (kind === 'codex') return { path: join(env.CODEX_HOME || join(home, '.codex'), 'sessions'), what: 'Codex CLI rollouts' };
  if (kind === 'gemini') return { path: join(home, '.gemini', 'tmp'), what: 'Gemini CLI chats' };
  return { path: join(home, '.claude', 'projects'), what: 'Claude Code transcripts' };
}

/** The files importer of each kind, loaded when used. */
async function filesImporter(kind: ImportSource): Promise<typeof import('../importers/claude-code/files.js').importClaudeCodeFiles> {
  switch (kind) {
    case 'chat':
      return (await import('../importers/chat-files.js')).importChatFiles;
    case 'codex':
      return (await import('../importers/codex/files.js')).importCodexFiles;
    case 'gemini':
      return (await import('../importers/gemini/files.js')).importGeminiFiles;
    case 'claude-code':
      return (await import('../importers/claude-code/files.js')).importClaudeCodeFiles;
  }
}

/** What --follow reads for each kind (claude-code: the follower's default). */
async function followFormat(kind: ImportSource): Promise<FollowFormat | undefined> {
  if (kind === 'codex') return (await import('../importers/codex/files.js')).ROLLOUT_FOLLOW;
  if (kind === 'gemini') return (await import('../importers/gemini/files.js')).GEMINI_FOLLOW;
  return undefined;
}

/** `import claude-code|codex|gemini|chat`: transcripts into sessions, through a running server or in-process. */
export async function importCommand(argv: string[]): Promise<number | undefined> {
  if (argv[0] === 'bundle') return (await import('./export.js')).importBundleCommand(argv.slice(1));
  if (answeredInfo(argv, () => IMPORT_HELP)) return 0;
  let values: { 'data-dir'?: string; follow?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: { 'data-dir': { type: 'string' }, follow: { type: 'boolean' } },
      strict: true,
      allowPositionals: true,
    }));
  } catch (error) {
    throw new ConfigError((error as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  const [kind, ...paths] = positionals;
  const names = IMPORT_SOURCES.join(' or ');
  if (!isImportSource(kind)) throw new ConfigError(kind === undefined ? `import what? ${names}` : `unknown import ${JSON.stringify(kind)}: ${names}`);
  if (values.follow && kind === 'chat') throw new ConfigError('--follow is for claude-code, codex and gemini');
  if (kind === 'chat' && paths.length === 0) throw new ConfigError('import chat needs at least one FILE');
  const config = loadConfig(typeof values['data-dir'] === 'string' ? ['--data-dir', values['data-dir']] : [], process.env);
  if (existsSync(config.dataDir) && !statSync(config.dataDir).isDirectory()) throw new CannotRun(`the data dir ${config.dataDir} is not a folder`);
  // The default data dir is made on first use; one named on the command line must exist (a typo
  // would otherwise import into a new, empty data dir no server reads).
  if (typeof values['data-dir'] === 'string' && !existsSync(config.dataDir)) {
    throw new CannotRun(`no data dir at ${config.dataDir}; check --data-dir (a server started with --data-dir ${config.dataDir} creates it)`);
  }
  const { homedir } = await import('node:os');
  let targets = paths;
  if (kind !== 'chat' && paths.length === 0) {
    const fallback = defaultPaths(kind, homedir(), process.env);
    if (!existsSync(fallback.path)) throw new CannotRun(`no ${fallback.what} at ${fallback.path}; name the files or folders to import`);
    targets = [fallback.path];
  }
  const sink = await openImportSink(config);
  try {
    if (values.follow) return await followCommand(sink, targets, await followFormat(kind));
    const importFiles = await filesImporter(kind);
    const bar = importProgress();
    const sessions = new Set<string>();
    let turns = 0;
    const summary = await importFiles(sink.target, targets, {
      onProgress: (p) => {
        if (p.outcome) {
          sessions.add(p.outcome.sessionId);
          turns += p.outcome.turnsAdded;
        }
        bar.file(p.index, p.total, sessions.size, turns);
      },
    });
    bar.end();
    await sink.settle(sessions);
    printImportSummary(summary);
    return exitFor(filesWithErrors(summary.errors));
  } finally {
    await sink.close();
  }
}
