/**
 * A query read once per change of its variables (or of `version`), outside urql's active
 * operations: unlike useQuery, it is not read again whenever a mutation or an event
 * answers with a Session or a Commit (urql's document cache re-runs every active query
 * holding a type the answer holds). The session page moves its head by mutation many
 * times a minute; what only depends on the viewed commit, or on explicit signals, should
 * not be read again each time.
 */
import { useEffect, useRef, useState } from 'react';
import { getOperationName, useClient, type AnyVariables, type RequestPolicy, type TypedDocumentNode } from 'urql';
import { takeArrived } from '../../lib/preloaded';

export interface Fetched<Data> {
  data: Data | null;
  /** The variables `data` was read with (as JSON), to tell a stale answer from the current one. */
  key: string | null;
  error: string | null;
}

export function useFetch<Data, Variables extends AnyVariables>(
  query: TypedDocumentNode<Data, Variables>,
  variables: Variables,
  options: { pause?: boolean; version?: number; requestPolicy?: RequestPolicy } = {},
): Fetched<Data> {
  const client = useClient();
  const key = JSON.stringify(variables);
  const { pause = false, version = 0, requestPolicy = 'network-only' } = options;
  // On a cold open, what the preload script has already read is shown in the first render.
  const [state, setState] = useState<Fetched<Data>>(() => {
    const data = pause ? undefined : takeArrived<Data>(getOperationName(query) ?? '', variables as Record<string, unknown>);
    return data === undefined ? { data: null, key: null, error: null } : { data, key, error: null };
  });
  const preloadedKey = useRef(state.key);
  useEffect(() => {
    if (pause) return;
    if (preloadedKey.current !== null) {
      const same = preloadedKey.current === key && version === 0;
      preloadedKey.current = null;
      if (same) return;
    }
    let current = true;
    client
      .query(query, JSON.parse(key) as Variables, { requestPolicy: version > 0 ? 'network-only' : requestPolicy })
      .toPromise()
      .then((result) => {
        if (!current) return;
        if (result.error) setState((previous) => ({ ...previous, error: result.error!.graphQLErrors[0]?.message ?? result.error!.message }));
        else setState({ data: result.data ?? null, key, error: null });
      });
    return () => {
      current = false;
    };
  }, [client, query, key, pause, version, requestPolicy]);
  return state;
}
