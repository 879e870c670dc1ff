/** Placeholder: the replay view of one session (filled in by the replay work). */
export function SessionPage({ sessionId }: { sessionId: string }) {
  return (
    <main>
      <h1>{sessionId}</h1>
    </main>
  );
}
