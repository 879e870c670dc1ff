/**
 * The mutations' resolver: run the service, then read the row it wrote with
 * the caller's selection, so everything the mutation's result asks for (its
 * relations too) loads in one query after the write instead of one per field.
 * A service that hands back the whole row it wrote needs no read when the
 * selection asks for that row's own columns only (`serviceRow`).
 */
import type { Context } from '../context.js';
import type { Db } from '../db/index.js';
import type PrismaTypes from '../generated/pothos-types.js';
import type { Deps } from '../services/deps.js';

/** The selection Pothos plans for a prismaField of type `Name`. */
type PrismaQuery<Name extends keyof PrismaTypes> = { include?: PrismaTypes[Name]['Include']; select?: PrismaTypes[Name]['Select'] };

/** For each model a mutation returns, the unique key of the row a service hands back. */
interface RowKey {
  Session: { sessionId: string };
  Message: { id: string };
  Turn: { id: string };
  Project: { projectId: string };
}

type Refetchable = keyof RowKey;

// A mapped type over the model name, so `readers[type]` is called with arguments of that same model (no casts).
const readers: { [Name in Refetchable]: (db: Db, key: RowKey[Name], query: PrismaQuery<Name>) => Promise<PrismaTypes[Name]['Shape']> } = {
  Session: (db, { sessionId }, query) => db.session.findUniqueOrThrow({ ...query, where: { sessionId } }),
  Message: (db, { id }, query) => db.message.findUniqueOrThrow({ ...query, where: { id } }),
  Turn: (db, { id }, query) => db.turn.findUniqueOrThrow({ ...query, where: { id } }),
  Project: (db, { projectId }, query) => db.project.findUniqueOrThrow({ ...query, where: { projectId } }),
};

/**
 * The resolver of a `t.prismaField` mutation of type `type` taking `input`:
 * `service(input, deps)`, then the row it returned, read again with the
 * caller's selection. Whatever the service throws reaches the client as it
 * is; the row is read after the service's transaction, so it is there
 * (findUniqueOrThrow only fails if it was deleted in between).
 */
export function serviceThenRow<Name extends Refetchable, Input>(
  type: Name,
  service: (input: Input, deps: Deps) => Promise<RowKey[Name]>,
): (query: PrismaQuery<Name>, root: unknown, args: { input: Input }, ctx: Context) => Promise<PrismaTypes[Name]['Shape']> {
  const read = readers[type];
  return async (query, _root, { input }, ctx) => read(ctx.deps.db, await service(input, ctx.deps), query);
}

/**
 * As `serviceThenRow`, for a service that returns the whole row it wrote (as
 * it stood at its commit): when the caller's selection asks for no relation,
 * that row is the answer and nothing is read after the write (recordTurn's
 * usual `number mirrorState`); otherwise it is read again with the selection.
 */
export function serviceRow<Name extends Refetchable, Input>(
  type: Name,
  service: (input: Input, deps: Deps) => Promise<PrismaTypes[Name]['Shape'] & RowKey[Name]>,
): (query: PrismaQuery<Name>, root: unknown, args: { input: Input }, ctx: Context) => Promise<PrismaTypes[Name]['Shape']> {
  const read = readers[type];
  return async (query, _root, { input }, ctx) => {
    const row = await service(input, ctx.deps);
    return ownColumnsOnly(query) ? row : read(ctx.deps.db, row, query);
  };
}

/** Pothos plans `{}` for a selection of scalar fields only, and an include or a select naming each relation otherwise. */
function ownColumnsOnly(query: { include?: object; select?: object }): boolean {
  return query.select === undefined && (query.include === undefined || Object.keys(query.include).length === 0);
}
