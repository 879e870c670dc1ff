import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { syncFile, syncFileSync, syncFolder, syncFolderSync } from '../../src/fs/durable.js';
import { tempDir } from '../helpers/temp.js';

describe('durable writes', () => {
  it('syncs a file and the folder of a rename; a folder that is not there is an error, not a refusal to pass over', async () => {
    const dir = tempDir();
    const file = join(dir, 'f');
    writeFileSync(file, 'x');
    syncFileSync(file);
    await syncFile(file);
    syncFolderSync(dir);
    await syncFolder(dir);
    expect(() => syncFolderSync(join(dir, 'missing'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    await expect(syncFolder(join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
