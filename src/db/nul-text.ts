/**
 * Message text with U+0000 on PostgreSQL. SQLite stores any string; PostgreSQL's `text` refuses
 * the NUL character ("invalid byte sequence for encoding UTF8: 0x00"), and a tool's output (a
 * binary file read as text) holds one now and then. Refusing such a turn would lose it, so on
 * PostgreSQL a message's content that holds a NUL is stored escaped, and every read gives the
 * original back: the API, the mirror's files and so the session repos are byte for byte those of
 * SQLite.
 *
 * The escape: `MARK` then the text with `%` as `%25` and NUL as `%00`. Text that starts with
 * `MARK` (private-use characters) is escaped too, so what is stored is always read back exactly.
 */
const MARK = '\u{F8FF}nul\u{F8FF}';

/** What PostgreSQL stores for `text`. */
export function escapeNul(text: string): string {
  if (!text.includes('\0') && !text.startsWith(MARK)) return text;
  return MARK + text.replace(/[%\0]/g, (c) => (c === '%' ? '%25' : '%00'));
}

/** The text `escapeNul` was given. */
export function unescapeNul(stored: string): string {
  if (!stored.startsWith(MARK)) return stored;
  return stored.slice(MARK.length).replace(/%(25|00)/g, (_, code: string) => (code === '25' ? '%' : '\0'));
}

type WriteArgs = { data?: unknown; create?: unknown; update?: unknown };

/** A message write's data with its content escaped (one row, many rows, or an upsert's two). */
function escapeWrite(args: WriteArgs): WriteArgs {
  const escapeData = (data: unknown): unknown => {
    if (Array.isArray(data)) return data.map(escapeData);
    if (data === null || typeof data !== 'object') return data;
    const row = data as { content?: unknown };
    if (typeof row.content === 'string') return { ...row, content: escapeNul(row.content) };
    const set = (row.content as { set?: unknown } | undefined)?.set;
    if (typeof set === 'string') return { ...row, content: { set: escapeNul(set) } };
    return data;
  };
  return {
    ...args,
    ...(args.data === undefined ? {} : { data: escapeData(args.data) }),
    ...(args.create === undefined ? {} : { create: escapeData(args.create) }),
    ...(args.update === undefined ? {} : { update: escapeData(args.update) }),
  };
}

/**
 * The Prisma client extension that does it: `Message.content` unescaped in every result (nested
 * ones too), escaped in every write through the Message model. Statements written by hand that
 * insert messages escape it themselves (src/services/sessions/session-writer.ts).
 */
export const nulSafeMessageText = {
  name: 'nul-safe-message-text',
  result: {
    message: {
      content: { needs: { content: true }, compute: (message: { content: string }) => unescapeNul(message.content) },
    },
  },
  query: {
    message: {
      async $allOperations({ operation, args, query }: { operation: string; args: WriteArgs; query: (args: WriteArgs) => Promise<unknown> }) {
        return query(/^(create|update|upsert)/.test(operation) ? escapeWrite(args) : args);
      },
    },
  },
};
