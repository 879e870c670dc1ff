/**
 * Whole rows inserted with one raw statement per batch, for loads of thousands of rows (an
 * imported session): Prisma's createMany spent about 0.3 ms per message row and 0.5 ms per turn
 * row here (its query building, row by row), raw statements a small part of that (bench/portable.ts).
 * Only the columns listed are written, in that order; the names come from the caller's fixed
 * list, never from the rows. On PostgreSQL a message's content is stored NUL-escaped, as every
 * other write stores it (src/db/nul-text.ts).
 */
import { dialectOf, placeholders } from './dialect.js';
import type { Prisma } from '../generated/prisma/client.js';
import { escapeNul } from './nul-text.js';

/** Rows per statement: at most ~32 columns each, under SQLite's 32,766 bound values and PostgreSQL's 65,535. */
const ROWS_PER_STATEMENT = 500;

export async function insertRows<Row extends object>(tx: Prisma.TransactionClient, table: 'Message' | 'Turn', columns: readonly (keyof Row & string)[], rows: readonly Row[]): Promise<void> {
  const postgres = dialectOf(tx) === 'postgresql';
  const names = columns.map((c) => `"${c}"`).join(', ');
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(start, start + ROWS_PER_STATEMENT);
    const p = placeholders(tx);
    const values = chunk.map(() => `(${columns.map(() => p()).join(', ')})`).join(', ');
    const args = chunk.flatMap((row) =>
      columns.map((c) => {
        const value = row[c] as unknown;
        return postgres && table === 'Message' && c === 'content' && typeof value === 'string' ? escapeNul(value) : (value ?? null);
      }),
    );
    await tx.$executeRawUnsafe(`INSERT INTO "${table}" (${names}) VALUES ${values}`, ...args);
  }
}
