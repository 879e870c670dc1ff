/**
 * Refetches a query (network-only) whenever `version` changes after mount: the project
 * page bumps it on live events, so each part of the page reloads what it shows.
 */
import { useEffect, useRef } from 'react';
import type { OperationContext } from 'urql';

export function useRefetchOn(version: number, refetch: (opts?: Partial<OperationContext>) => void): void {
  const seen = useRef(version);
  useEffect(() => {
    if (seen.current === version) return;
    seen.current = version;
    refetch({ requestPolicy: 'network-only' });
  }, [version, refetch]);
}
