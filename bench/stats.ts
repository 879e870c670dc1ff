/** Small helpers for the benchmark scripts: percentiles and a table row. */
export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export function summary(label: string, samples: number[]): { label: string; p50: number; p99: number } {
  return { label, p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

export function row(label: string, p50: number, p99: number, extra = ''): string {
  return `${label.padEnd(44)} p50 ${p50.toFixed(2).padStart(8)} ms   p99 ${p99.toFixed(2).padStart(8)} ms ${extra}`;
}

export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}
