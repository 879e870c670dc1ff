/**
 * The search field at the top of the sidebar (form role "search", textbox "Search messages"):
 * `/` focuses it from anywhere but a text field; Enter opens the search page for what it holds.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { navigate, searchPath, useSearch } from '../../lib/router';
import { isTextEntry } from '../../lib/text-entry';

export function SearchBox() {
  const input = useRef<HTMLInputElement>(null);
  const shown = useSearch().get('q') ?? '';
  const [text, setText] = useState(shown);
  // The page's query, when another search is opened (Back, a link).
  useEffect(() => setText(shown), [shown]);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey || isTextEntry(document.activeElement)) return;
      event.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (text.trim() === '') return;
    // The filters chosen on the search page stay.
    const here = new URLSearchParams(window.location.pathname === '/search' ? window.location.search : '');
    here.delete('q');
    navigate(searchPath(text, Object.fromEntries(here)));
  };
  return (
    <form role="search" className="search-box" onSubmit={submit}>
      <input
        ref={input}
        type="search"
        aria-label="Search messages"
        placeholder="Search messages ( / )"
        value={text}
        onChange={(event) => setText(event.target.value)}
      />
    </form>
  );
}
