/**
 * The data dir against its disk budget, when the server has one (`serve --max-disk`): a line at
 * the foot of the sidebar, an alert from 90% on (past the budget, the sessions idle longest are
 * archived; they come back when opened).
 */
import { useQuery } from 'urql';
import { graphql } from '../gql';

const DiskUsageQuery = graphql(`
  query DiskUsage {
    diskUsage {
      usedBytes
      budgetBytes
      warning
    }
  }
`);

/** Bytes as a person reads them: 512 B, 40.0 KB, 3.2 MB, 1.1 GB (powers of 1,024). */
export function bytesText(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let n = bytes;
  let unit = 0;
  while (n >= 1024 && unit < units.length - 1) {
    n /= 1024;
    unit++;
  }
  return unit === 0 ? `${n} B` : `${n.toFixed(1)} ${units[unit]}`;
}

export function DiskUsage() {
  const [{ data }] = useQuery({ query: DiskUsageQuery });
  const usage = data?.diskUsage;
  if (!usage) return null;
  const text = `Disk: ${bytesText(usage.usedBytes)} of ${bytesText(usage.budgetBytes)}`;
  return usage.warning ? (
    <p role="alert" className="disk-usage warning">
      {text}: near the budget; the sessions idle longest are archived (they come back when opened)
    </p>
  ) : (
    <p className="disk-usage muted">{text}</p>
  );
}
