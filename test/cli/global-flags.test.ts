import { describe, expect, test } from 'vitest';
import { moveGlobalFlags } from '../../src/cli/global-flags.js';
import { buildProgram } from '../../src/cli/program.js';

const program = buildProgram();
const move = (line: string) => moveGlobalFlags(program, line.split(' ')).join(' ');

describe('global flags before the command name', () => {
  test('move to just after the command path, with their values', () => {
    expect(move('--json jobs list')).toBe('jobs list --json');
    expect(move('-q --no-color redact a.wav -o out')).toBe('redact -q --no-color a.wav -o out');
    expect(move('--timeout 5 --max-retries=0 -v jobs content 55e5')).toBe(
      'jobs content --timeout 5 --max-retries=0 -v 55e5',
    );
    expect(move('--json config get token')).toBe('config get --json token');
  });

  test("between a group's name and its subcommand's, and before a group named alone", () => {
    expect(move('jobs -q list')).toBe('jobs list -q');
    expect(move('--json config --timeout=5 list --all')).toBe('config list --json --timeout=5 --all');
    expect(move('--no-color jobs')).toBe('jobs --no-color');
  });

  test('anything else is left as typed, for commander to judge', () => {
    expect(move('jobs list --json')).toBe('jobs list --json');
    expect(move('--json nonsense')).toBe('--json nonsense');
    // The program takes them itself, and shows its help.
    expect(move('-q --no-color')).toBe('-q --no-color');
    expect(move('--json --version')).toBe('--json --version');
    expect(move('--token vr_test_x jobs list')).toBe('--token vr_test_x jobs list');
    expect(move('redact -- --json')).toBe('redact -- --json');
  });
});
