/**
 * Everything a test starts (servers, clients, temp folders) is pushed here and
 * disposed after that test, in reverse order, so no test leaks a socket, a
 * port or a folder into the next.
 */
import { afterEach } from 'vitest';

type Disposer = () => unknown;

const leftovers: Disposer[] = [];

export function onCleanup(dispose: Disposer): void {
  leftovers.push(dispose);
}

afterEach(async () => {
  const errors: unknown[] = [];
  while (leftovers.length > 0) {
    const dispose = leftovers.pop()!;
    try {
      await dispose();
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length > 0) throw errors[0];
});
