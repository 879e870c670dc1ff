/**
 * The component tests (web/src, jsdom) wait for what they expect by polling (findBy…, waitFor):
 * until it holds, for as long as a loaded machine may need. Testing Library's default of one
 * second is a guess of time: under load, a module the page loads lazily (the markdown parser and
 * its grammars) alone took longer, and a test failed that a quiet machine passes. A wait that
 * holds still returns at once.
 */
if (typeof document !== 'undefined') {
  const { configure } = await import('@testing-library/dom');
  configure({ asyncUtilTimeout: 30_000 });
}
