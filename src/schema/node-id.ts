/**
 * Relay global ids as `node(id:)` reads them: a mistyped id is the caller's
 * mistake (BAD_USER_INPUT), an id of a type that is not a node, or of
 * nothing that exists, is simply no node (null), as the schema says.
 */
import { isObjectType, type GraphQLResolveInfo } from 'graphql';
import { BadUserInputError } from '../errors.js';
import { Prisma } from '../generated/prisma/client.js';

const TYPENAME = /^[A-Za-z_]\w{0,127}$/;

/**
 * Decodes `base64("<Type>:<key>")` (the encoding Pothos writes).
 * @throws BadUserInputError when `globalID` is not one.
 */
export function decodeNodeId(globalID: string): { typename: string; id: string } {
  const text = /^[A-Za-z0-9+/_-]{1,1400}={0,2}$/.test(globalID) ? Buffer.from(globalID, 'base64').toString('utf8') : '';
  const colon = text.indexOf(':');
  const typename = text.slice(0, Math.max(colon, 0));
  const id = text.slice(colon + 1);
  if (colon < 1 || !TYPENAME.test(typename) || id === '') {
    throw new BadUserInputError(
      `id ${JSON.stringify(globalID.slice(0, 80))} is not a node id: pass the id field of a Session, Message, Project, Turn, Commit or Branch as it was returned.`,
      { field: 'id' },
    );
  }
  return { typename, id };
}

/** Whether `typename` is an object type of the schema that implements Node. */
export function isNodeType(typename: string, info: GraphQLResolveInfo): boolean {
  const type = info.schema.getType(typename);
  return isObjectType(type) && type.getInterfaces().some((i) => i.name === 'Node');
}

/**
 * The node an id names, or null when it names none: a type that is not a
 * node, or a record that does not exist (Pothos' Prisma nodes load with
 * `findUniqueOrThrow`).
 */
export async function loadNode(
  id: { typename: string; id: string },
  info: GraphQLResolveInfo,
  load: (id: { typename: string; id: string }) => unknown,
): Promise<unknown> {
  if (!isNodeType(id.typename, info)) return null;
  try {
    return await load(id);
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2025') return null;
    throw error;
  }
}
