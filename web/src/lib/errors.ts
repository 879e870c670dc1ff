/** What a failed request says, in the server's own words. */
import type { CombinedError } from 'urql';

/** The server's own words for a failed request. */
export function errorMessage(error: CombinedError): string {
  return error.graphQLErrors[0]?.message ?? error.networkError?.message ?? error.message;
}

/** A refusal's sentence and the paths it names (`extensions.paths` of a CONFLICT: what is in the way). */
export function refusal(error: CombinedError): { message: string; paths: string[] } {
  const paths = (error.graphQLErrors[0]?.extensions as { paths?: unknown } | undefined)?.paths;
  return { message: errorMessage(error), paths: Array.isArray(paths) ? paths.filter((p): p is string => typeof p === 'string') : [] };
}
