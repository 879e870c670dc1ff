/**
 * The command line: `entity-memory serve [flags]` (the default command), `backfill`, `verify`,
 * `gc`, `redact`, `import`, `rewind`, `search`, `hooks`, `hook`, `mcp` and `service`.
 *
 * Exit status: 0 done; 2 could not run (a bad flag or value, no data dir, the data dir in use or
 * not a folder, the port taken, the database locked or behind, Redis out of reach), with one
 * line on stderr and nothing on stdout;
 * `verify` and `backfill` exit with the number of sessions out of sync or failed, 1 to 125
 * (`gc`: of repos it could not compact)
 * (`redact`: of session repos it could not rebuild)
 * (125: that many or more), after a table on stdout; `import` with the number of files that had
 * errors, 1 to 125, after its summary; `rewind` 1 when a path the user changed refused it; `search` 1 when nothing matched; `hook` always 0, as an agent's hook must; 1 for anything unexpected (a bug: the stack is printed).
 */
import { setFlagsFromString } from 'node:v8';
import { backfill } from './cli/backfill.js';
import { CannotRun } from './cli/errors.js';
import { archiveCommand, unarchiveCommand } from './cli/archive.js';
import { exportCommand } from './cli/export.js';
import { gcCommand } from './cli/gc.js';
import { version } from './cli/help.js';
import { hookCommand, hooksCommand } from './cli/hooks.js';
import { importCommand } from './cli/import.js';
import { mcpCommand } from './cli/mcp.js';
import { redactCommand } from './cli/redact.js';
import { rewindCommand } from './cli/rewind.js';
import { searchCommand } from './cli/search.js';
import { serve } from './cli/serve.js';
import { serviceCommand } from './cli/service.js';
import { verifyCommand } from './cli/verify.js';
import { ConfigError } from './config.js';
import { DataDirBusyError } from './data-dir-lock.js';

// Only the modules above (each command's flags and help, the config, the data dir's lock) load
// before a command has checked its flags and its data dir: the server's (GraphQL, Prisma, git)
// take a second or more, and a refusal should not wait for them. Each command (src/cli/) loads
// what it needs once its flags are checked.

// The Prisma query compiler is WebAssembly (3 MB). V8 compiles it with Liftoff, then recompiles
// the hot functions with TurboFan in the background; that second compilation held about 55 MB
// more RSS for the life of the server (bench/startup.ts, what holds the memory), and recordTurn
// over HTTP was no slower with Liftoff only (p50 33-38 ms against 36-47 ms, in one run, load 9).
// Set before any WebAssembly is compiled; the flag concerns WebAssembly only, not JavaScript.
setFlagsFromString('--liftoff-only');

const USAGE = `usage: entity-memory [serve] [flags]        serve the API and mirror sessions into git (the default)
       entity-memory backfill [flags]       bring the session repos in line with the database now
       entity-memory verify [flags]         compare each session's turns with its repo, read-only
       entity-memory gc [--dry-run]         compact the session repos, drop old moved-aside copies
       entity-memory archive SESSION… | --older-than DAYS   keep idle session repos as bundles
       entity-memory unarchive SESSION…     bring archived session repos back
       entity-memory redact --existing      take secrets out of what was stored before, repos rebuilt
       entity-memory import claude-code [PATH…] [--follow]   import Claude Code transcripts
       entity-memory import codex [PATH…] [--follow]   import Codex CLI rollouts
       entity-memory import gemini [PATH…] [--follow]   import Gemini CLI chats
       entity-memory import chat FILE…      import chat logs
       entity-memory export SESSION --out FILE   one session as one file; import bundle FILE takes it back
       entity-memory rewind SESSION TURN [--code] [--conversation] [--dry-run]   back to a turn
       entity-memory search QUERY [--project ID] [--session ID] [--limit N] [--json]   find messages
       entity-memory hooks install <claude-code|codex|gemini>   record the agent live through its hooks
       entity-memory hooks status           what is installed, the server, the last event
       entity-memory hooks uninstall <agent>   remove our hooks, leave the others
       entity-memory mcp [--data-dir DIR]   the MCP tools on stdio, through the running server
       entity-memory service install|uninstall|status   the server started at login (systemd, launchd)
       entity-memory <command> --help       a command's flags and defaults
       entity-memory --version`;

/** The server's, the database's and Redis' refusals: already loaded when they were thrown. */
async function isOneLineError(error: unknown): Promise<boolean> {
  const [{ ListenError }, { DatabaseError }, { RedisUnavailableError }] = await Promise.all([
    import('./server.js'),
    import('./db/index.js'),
    import('./redis-pubsub.js'),
  ]);
  return error instanceof ListenError || error instanceof DatabaseError || error instanceof RedisUnavailableError;
}

/** An import through a running server that it refused or could not take: the client's error, said in one line. */
async function isClientError(error: unknown): Promise<boolean> {
  const { EntityMemoryError } = await import('./client/index.js');
  return error instanceof EntityMemoryError;
}

async function main(args: string[]): Promise<number | undefined> {
  const [command = 'serve', ...rest] = args;
  if (command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return 0;
  }
  if (command === '--version') {
    console.log(`entity-memory ${version()}`);
    return 0;
  }
  if (command === 'serve') return serve(rest);
  if (command === 'backfill') return backfill(rest);
  if (command === 'verify') return verifyCommand(rest);
  if (command === 'gc') return gcCommand(rest);
  if (command === 'archive') return archiveCommand(rest);
  if (command === 'export') return exportCommand(rest);
  if (command === 'unarchive') return unarchiveCommand(rest);
  if (command === 'redact') return redactCommand(rest);
  if (command === 'import') return importCommand(rest);
  if (command === 'rewind') return rewindCommand(rest);
  if (command === 'search') return searchCommand(rest);
  if (command === 'hooks') return hooksCommand(rest);
  if (command === 'hook') return hookCommand(rest);
  if (command === 'mcp') return mcpCommand(rest);
  if (command === 'service') return serviceCommand(rest);
  if (command.startsWith('-')) return serve(args);
  throw new ConfigError(`unknown command ${JSON.stringify(command)}`);
}

main(process.argv.slice(2)).then(
  (status) => {
    if (status !== undefined) process.exit(status);
  },
  async (error: unknown) => {
    if (error instanceof ConfigError) {
      console.error(`entity-memory: ${error.message} (see --help)`);
      process.exit(2);
    }
    if (error instanceof CannotRun || error instanceof DataDirBusyError || (await isOneLineError(error)) || (await isClientError(error))) {
      console.error(`entity-memory: ${(error as Error).message}`);
      process.exit(2);
    }
    // A file system refusal (a data dir that is a file, or not writable) already says it all in one line.
    const fsError = error as NodeJS.ErrnoException;
    if (typeof fsError.code === 'string' && typeof fsError.syscall === 'string' && typeof fsError.path === 'string') {
      console.error(`entity-memory: ${fsError.message}`);
      process.exit(2);
    }
    console.error(`entity-memory: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);
