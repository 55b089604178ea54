// Moved to test/helpers/signal.ts; this re-export stays only until test/e2e/redact-voice.test.ts imports from there.
export * from '../../helpers/signal.js';
