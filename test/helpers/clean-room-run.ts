/**
 * A clean-room service (clean-room-server.ts) and a folder for one test, removed after it whatever
 * happens, with the built binary pointed at the service from that folder.
 */
import { join } from 'node:path';
import { isolatedEnv, runCli, tempDir } from './cli.js';
import { type CleanRoomOptions, type CleanRoomService, startCleanRoomService } from './clean-room-server.js';

/**
 * Only a guard against a run that hangs: these tests make several runs of the binary each, while
 * the suite's other files load both cores.
 */
const RUN_GUARD_MS = 60_000;

export interface CleanRoomRun {
  service: CleanRoomService;
  dir: string;
  vredact(args: string[]): ReturnType<typeof runCli>;
}

export async function withCleanRoom(
  options: CleanRoomOptions,
  test: (run: CleanRoomRun) => Promise<void>,
  folderPrefix = 'vredact-clean-room-',
): Promise<void> {
  const temp = await tempDir(folderPrefix);
  const service = await startCleanRoomService(options);
  try {
    const env = isolatedEnv(join(temp.path, '.config'), {
      VREDACT_BASE_URL: service.baseUrl,
      VREDACT_TOKEN: service.token,
    });
    await test({
      service,
      dir: temp.path,
      vredact: (args) => runCli(args, { env, cwd: temp.path, timeout: RUN_GUARD_MS }),
    });
  } finally {
    await service.close();
    await temp.cleanup();
  }
}
