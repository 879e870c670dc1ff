/** A one-line progress bar on stderr when it is a terminal; silent otherwise. */
export function progress(label: string): (done: number, total: number) => void {
  if (!process.stderr.isTTY) return () => {};
  return (done, total) => {
    const width = 30;
    const filled = total === 0 ? width : Math.round((done / total) * width);
    process.stderr.write(`\r${label} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${done}/${total}`);
    if (done === total) process.stderr.write('\n');
  };
}
