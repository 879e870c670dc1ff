/** Paths of the user's repo named in a message (in the way, written, uncommitted): one per line, as code; nothing for none. */
export function PathList({ paths }: { paths: readonly string[] }) {
  if (paths.length === 0) return null;
  return (
    <ul className="paths">
      {paths.map((path) => (
        <li key={path}>
          <code>{path}</code>
        </li>
      ))}
    </ul>
  );
}
