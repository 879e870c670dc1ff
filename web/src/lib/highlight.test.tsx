import { describe, expect, it } from 'vitest';
import { languageOf } from './highlight';
import { highlightLine } from './highlighter';
import { renderToStaticMarkup } from 'react-dom/server';

describe('syntax highlighting', () => {
  it("knows a file's language by its extension or its name, and none for the rest", () => {
    expect(languageOf('src/app/main.tsx')).toBe('typescript');
    expect(languageOf('/home/dev/x/setup.PY')).toBe('python');
    expect(languageOf('Makefile')).toBe('makefile');
    expect(languageOf('docs/notes.yaml')).toBe('yaml');
    for (const path of ['LICENSE', '.gitignore', 'data.bin', 'archive.tar.gz', '', null, undefined]) expect(languageOf(path)).toBeNull();
  });

  it('colours a line as elements, never as HTML from the text, and leaves an unknown language plain', () => {
    expect(renderToStaticMarkup(<>{highlightLine('typescript', 'const n = 1; // <b>')}</>)).toBe(
      '<span class="hljs-keyword">const</span> n = <span class="hljs-number">1</span>; <span class="hljs-comment">// &lt;b&gt;</span>',
    );
    expect(highlightLine('no-such-language', 'x <y>')).toBe('x <y>');
  });
});
