/** `entity-memory rewind SESSION TURN`: back to a turn for the code, the conversation or both, through a running server or in-process. */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { DataDirBusyError, lockDataDir } from '../data-dir-lock.js';
import type { EntityMemoryClient, RewindInput, RewindOutcome } from '../client/index.js';
import { answeredInfo, COMMON_LINES, DATA_DIR_LINE } from './help.js';
import { runningServer } from './running-server.js';

const REWIND_HELP = `usage: entity-memory rewind SESSION TURN [--code] [--conversation] [--dry-run] [--data-dir DIR]

Goes back to turn TURN of the session's current branch, as the agents' own rewinds do:
  --code           put the files the agent changed in the session's project back to their state
                   after TURN (0: before the first turn). Only the agent's paths are written; if
                   you changed one since the agent left it, nothing is written and the paths are
                   listed. Recorded as a commit by the agent when the rest of the tree is clean,
                   else kept on a private ref (refs/entity-memory/snapshots/...).
  --conversation   the session's next message forks from TURN; the later turns stay on their branch.
With neither, both. Nothing is deleted: rewinding to the turn printed after "undo:" undoes it.

  --dry-run        print what it would do (each path and what it becomes, the paths you changed,
                   the fork) and change nothing
${DATA_DIR_LINE}
${COMMON_LINES}

When a server runs on the data dir the rewind goes through it; otherwise the data dir is opened
here, holding its lock.

Exit status: 0 rewound (or, with --dry-run, it would be); 1 refused because you changed a path it
would write (the paths listed on stderr); 2 when it could not run (bad flag or value, no such
session or turn, no data dir, server not reachable), with one line on stderr.`;

export async function rewindCommand(argv: string[]): Promise<number> {
  if (answeredInfo(argv, () => REWIND_HELP)) return 0;
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new ConfigError((error as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 2) throw new ConfigError('rewind takes a session id and a turn number');
  const [sessionId, turnText] = positionals as [string, string];
  if (!/^\d{1,9}$/.test(turnText)) throw new ConfigError(`the turn must be a number (0 or more), got ${JSON.stringify(turnText)}`);
  const config = loadConfig(
    [
      ...(values['data-dir'] !== undefined ? ['--data-dir', values['data-dir']] : []),
      ...(values['database-url'] !== undefined ? ['--database-url', values['database-url']] : []),
    ],
    process.env,
  );
  const input: RewindInput = {
    sessionId,
    turn: Number(turnText),
    ...(values.code || values.conversation ? { code: values.code === true, conversation: values.conversation === true } : {}),
    dryRun: values['dry-run'] === true,
  };
  return withClient(config, async (client) => {
    const { EntityMemoryError } = await import('../client/index.js');
    let outcome: RewindOutcome;
    try {
      outcome = await client.rewind(input);
    } catch (error) {
      if (!(error instanceof EntityMemoryError) || error.code !== 'CONFLICT') throw error;
      const paths = Array.isArray(error.extensions.paths) ? (error.extensions.paths as unknown[]).map(String) : [];
      console.error(`entity-memory: ${error.message}`);
      for (const path of paths) console.error(`  ${path}`);
      return 1;
    }
    print(outcome, sessionId);
    return 0;
  });
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    options: {
      code: { type: 'boolean' },
      conversation: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
    },
    strict: true,
    allowPositionals: true,
  });
}

const ACTION = { CREATE: 'A', MODIFY: 'M', DELETE: 'D' } as const;

/** The plan or what was done: a line per path (A/M/D, "changed by you" for a conflict), the fork, the undo. */
function print(outcome: RewindOutcome, sessionId: string): void {
  const { code, conversation } = outcome;
  if (code) {
    for (const change of code.changes) {
      console.log(`${ACTION[change.action]} ${change.path}${change.conflict ? '    (changed by you since the agent left it)' : ''}`);
    }
    for (const path of code.conflicts.filter((p) => !code.changes.some((c) => c.path === p))) {
      console.log(`! ${path}    (changed by you since the agent left it)`);
    }
  }
  if (conversation && conversation.laterTurns > 0) {
    const from = conversation.fromTurn.number;
    const later = conversation.laterTurns === 1 ? `turn ${from + 1} stays` : `turns ${from + 1}-${from + conversation.laterTurns} stay`;
    console.log(`fork from turn ${from}; ${later} on ${conversation.branch}`);
  }
  console.log(outcome.message);
  if (outcome.undoTurn !== null && !outcome.dryRun) {
    const flags = [code ? '--code' : '', conversation ? '--conversation' : ''].filter(Boolean);
    const which = flags.length === 2 ? '' : ` ${flags.join(' ')}`;
    console.log(`undo: entity-memory rewind ${sessionId} ${outcome.undoTurn}${which}`);
  }
}

/**
 * Runs `work` with a client of the server that holds the data dir, else of the app opened here
 * (the data dir's lock taken; refused while another command holds it).
 */
async function withClient<T>(config: Config, work: (client: EntityMemoryClient) => Promise<T>): Promise<T> {
  const { createClient } = await import('../client/index.js');
  let lock;
  try {
    lock = await lockDataDir(config.dataDir, { command: 'rewind' });
  } catch (error) {
    if (!(error instanceof DataDirBusyError) || error.holder?.command !== 'serve') throw error;
    const [server, { checkHttpTarget }] = await Promise.all([runningServer(config, error.holder.pid), import('../importers/http-target.js')]);
    // A server out of reach, or one that wants another token, is said in one line as for `import`.
    await checkHttpTarget(server);
    const client = createClient({ url: server.url, token: server.token, retries: 0 });
    try {
      return await work(client);
    } finally {
      await client.close();
    }
  }
  try {
    const [{ createLogger }, { createApp }] = await Promise.all([import('../logger.js'), import('../app.js')]);
    const app = await createApp(config, createLogger(process.env.LOG_LEVEL ?? 'warn'));
    const client = createClient({ url: 'http://127.0.0.1/graphql', retries: 0, fetch: (url, init) => Promise.resolve(app.yoga.fetch(new Request(url, init))) });
    try {
      return await work(client);
    } finally {
      await client.close();
      await app.close();
    }
  } finally {
    await lock.release();
  }
}
