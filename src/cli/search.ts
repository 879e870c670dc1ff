/** `entity-memory search QUERY`: every session's messages that match, from a terminal. */
import { parseArgs } from 'node:util';
import { ConfigError, databaseTarget, loadConfig } from '../config.js';
import { AppError } from '../errors.js';
import { CannotRun } from './errors.js';
import { answeredInfo, COMMON_LINES, DATA_DIR_LINE } from './help.js';

const SEARCH_HELP = `usage: entity-memory search QUERY [--project ID] [--session ID] [--limit N] [--json] [--data-dir DIR]

Every session's messages that match QUERY, best first, one line each:
  SESSION  TURN  ROLE: SNIPPET
QUERY: words (all must match), "a phrase", -word (must not match), prefix*, and the
qualifiers role:user|assistant|tool|system, tool:NAME, path:PATH (a file a tool touched, a
command it ran), session:ID. Quote it for your shell: entity-memory search 'login "rate limit" -test'

  --project ID     only the sessions of this project
  --session ID     only this session
  --limit N        at most N hits (default 20, at most 100)
  --json           one JSON array: sessionId, title, turnNumber, role, messageId, createdAt,
                   snippet, highlights ([start, end) in the snippet), rank
${DATA_DIR_LINE}
${COMMON_LINES}

Read-only (the database is opened read-only and never migrated), so it runs beside a server.

Exit status: 0 something found; 1 nothing found; 2 when it could not run (bad flag, malformed
query, no data dir, no database, or a database older than this entity-memory), with one line on
stderr.`;

export async function searchCommand(argv: string[]): Promise<number> {
  if (answeredInfo(argv, () => SEARCH_HELP)) return 0;
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        project: { type: 'string' },
        session: { type: 'string' },
        limit: { type: 'string' },
        json: { type: 'boolean' },
        'data-dir': { type: 'string' },
        'database-url': { type: 'string' },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new ConfigError((error as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  const { values, positionals } = parsed;
  if (positionals.length === 0) throw new ConfigError('search takes a query: entity-memory search WORDS');
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new ConfigError(`--limit must be from 1 to 100, got ${JSON.stringify(values.limit)}`);
  const config = loadConfig(
    [
      ...(values['data-dir'] !== undefined ? ['--data-dir', values['data-dir']] : []),
      ...(values['database-url'] !== undefined ? ['--database-url', values['database-url']] : []),
    ],
    process.env,
  );
  const [{ openDb }, { searchMessages }] = await Promise.all([import('../db/index.js'), import('../services/search/search.js')]);
  const db = await openDb({ ...databaseTarget(config), readOnly: true });
  try {
    let page;
    try {
      page = await searchMessages(db, {
        query: positionals.join(' '),
        filter: { ...(values.project !== undefined ? { projectId: values.project } : {}), ...(values.session !== undefined ? { sessionId: values.session } : {}) },
        first: limit,
      });
    } catch (error) {
      if (error instanceof AppError) throw new CannotRun(error.message);
      throw error;
    }
    const hits = page.edges.map(({ node }) => node);
    if (values.json) {
      const rows = hits.map((hit) => ({
        sessionId: hit.session.sessionId,
        title: hit.session.title,
        turnNumber: hit.turnNumber,
        role: hit.message.role,
        messageId: hit.message.messageId,
        createdAt: hit.message.createdAt.toISOString(),
        snippet: hit.snippet,
        highlights: hit.highlights,
        rank: hit.rank,
      }));
      console.log(JSON.stringify(rows, null, 2));
    } else {
      for (const hit of hits) {
        console.log(`${hit.session.sessionId}\t${hit.turnNumber ?? '-'}\t${hit.message.role.toLowerCase()}: ${hit.snippet.replace(/\s+/g, ' ').trim()}`);
      }
    }
    return hits.length > 0 ? 0 : 1;
  } finally {
    await db.$disconnect();
  }
}
