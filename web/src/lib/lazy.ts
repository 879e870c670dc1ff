/** Code loaded after the page, with what stands in when it cannot be loaded. */

/**
 * `load()` (a dynamic import), or `fallback` as its default export when it fails: for React.lazy,
 * whose component otherwise throws the failure at render and unmounts the page.
 */
export async function loadedOr<T>(load: () => Promise<{ default: T }>, fallback: T): Promise<{ default: T }> {
  try {
    return await load();
  } catch {
    return { default: fallback };
  }
}
