import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import type { Page } from '../services/page.js';

/**
 * Connection objects are the services' Page values; Pothos types a
 * connection's parent without our extra `totalCount` thunk, so read it here.
 */
export function pageTotalCount(parent: object): Promise<number> {
  return (parent as Page<unknown>).totalCount();
}

/**
 * Whether the connection being resolved is asked for anything but its
 * totalCount (its edges, its pageInfo): a count alone reads no rows.
 */
export function asksForRows(info: GraphQLResolveInfo): boolean {
  const names = (set: SelectionSetNode | undefined, out: string[] = []): string[] => {
    for (const sel of set?.selections ?? []) {
      if (sel.kind === Kind.FIELD) out.push(sel.name.value);
      else if (sel.kind === Kind.INLINE_FRAGMENT) names(sel.selectionSet, out);
      else names(info.fragments[sel.name.value]?.selectionSet, out);
    }
    return out;
  };
  return info.fieldNodes.some((f: FieldNode) => names(f.selectionSet).some((name) => name !== 'totalCount' && name !== '__typename'));
}
