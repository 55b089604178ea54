import { describe, expect, it } from 'vitest';
import {
  asLocalFsError,
  describeFsError,
  fsHint,
  isLocalFsError,
  LocalFsError,
} from '../../src/fs/errors.js';

const errno = (code: string) => Object.assign(new Error(`${code}: something`), { code });

describe('local file-system errors', () => {
  it('names the path and the reason, and says what to do', () => {
    const error = asLocalFsError(errno('ENOSPC'), '/out/a.wav', 'writing');
    expect(error).toBeInstanceOf(LocalFsError);
    expect((error as LocalFsError).message).toBe('writing /out/a.wav: no space left on the device (ENOSPC)');
    expect((error as LocalFsError).hint).toBe(fsHint('ENOSPC'));
    expect((error as LocalFsError).exitCode).toBe(1);
  });

  it('stops the batch only for failures no other file escapes', () => {
    for (const code of ['ENOSPC', 'EROFS', 'EDQUOT', 'EIO']) {
      expect((asLocalFsError(errno(code), '/p', 'writing') as LocalFsError).stopsBatch).toBe(true);
    }
    for (const code of ['EACCES', 'EMFILE', 'ENAMETOOLONG']) {
      expect((asLocalFsError(errno(code), '/p', 'writing') as LocalFsError).stopsBatch).toBe(false);
    }
  });

  it('leaves other errors as they are', () => {
    const network = Object.assign(new Error('reset'), { code: 'ECONNRESET' });
    expect(asLocalFsError(network, '/p', 'writing')).toBe(network);
    expect(isLocalFsError(network)).toBe(false);
    expect(isLocalFsError(errno('EMFILE'))).toBe(true);
    expect(describeFsError(errno('ENAMETOOLONG'))).toBe('file name too long');
  });
});
