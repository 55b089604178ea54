/** The local stand-in of the Voice Redaction Service (`vredact sandbox`); see README.md. */
export { generateToken } from './auth.js';
export type { FaultInput } from './faults.js';
export { MAX_DURATION_SEC, MAX_UPLOAD_BYTES, MODEL_RTF } from './limits.js';
export { resultNameFor } from './naming.js';
export { isLoopbackHost } from '../net/loopback.js';
export { DEFAULT_PORT, DEFAULT_SYNC_LIMIT_SEC, resolveOptions, type SandboxOptions } from './options.js';
export type { RequestRecord, SandboxStats } from './recorder.js';
export { type Sandbox, startSandbox } from './sandbox.js';
export { DataDirInUseError, DataDirTakenOverError } from './data-lock.js';
