/**
 * The README as a reference: its links lead where they say, and what the built binary documents
 * (options, environment variables, exit codes) is in it, so a new one cannot be left out of it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { beforeAll, describe, expect, test } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { isolatedEnv, REPO_ROOT, runCli, tempDirPerTest } from '../helpers/cli.js';

const work = tempDirPerTest('vredact-readme-');
const env = () => isolatedEnv(join(work.path, 'config'));

let readme = '';
beforeAll(async () => {
  readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
});

interface Heading {
  level: number;
  anchor: string;
  line: number;
}

/** The README's headings with GitHub's anchors: lower case, punctuation dropped, a repeat numbered. */
function headings(text: string): Heading[] {
  const found: Heading[] = [];
  const seen = new Map<string, number>();
  let inFence = false;
  text.split('\n').forEach((line, index) => {
    if (line.startsWith('```')) inFence = !inFence;
    const heading = inFence ? null : /^(#{1,6})\s+(.*)$/.exec(line);
    if (!heading) return;
    const slug = (heading[2] ?? '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const repeats = seen.get(slug) ?? 0;
    seen.set(slug, repeats + 1);
    found.push({
      level: heading[1]?.length ?? 0,
      anchor: repeats ? `${slug}-${repeats}` : slug,
      line: index,
    });
  });
  return found;
}

/** The text of the section a `## ` heading opens, to the next heading of its level or above. */
function section(text: string, title: string): string {
  const lines = text.split('\n');
  const start = lines.indexOf(`## ${title}`);
  if (start < 0) throw new Error(`README: no section "${title}"`);
  const end = lines.findIndex((line, index) => index > start && /^#{1,2} /.test(line));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

describe("the README's links", () => {
  test('every #anchor names a heading, and none the section it stands in', () => {
    const all = headings(readme);
    const anchors = new Set(all.map((heading) => heading.anchor));
    const lines = readme.split('\n');
    const wrong: string[] = [];
    lines.forEach((line, index) => {
      // The innermost heading above the link: a link to it leads nowhere but where the reader is.
      const within = all.filter((heading) => heading.line < index).at(-1);
      for (const [, anchor] of line.matchAll(/\]\(#([^)\s]+)\)/g)) {
        if (anchor === undefined) continue;
        if (!anchors.has(anchor)) wrong.push(`line ${index + 1}: #${anchor} names no heading`);
        else if (anchor === within?.anchor)
          wrong.push(`line ${index + 1}: #${anchor} is the section it is in`);
      }
    });
    expect(wrong).toEqual([]);
  });

  test('every section named in plain words, "(see How a run goes)", is a heading', () => {
    const titles = readme
      .split('\n')
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) => line.replace(/^#+ /, ''));
    const named = [...readme.matchAll(/\bsee ([A-Z][A-Za-z ]+)\)/g)].map((match) => match[1] ?? '');
    expect(named.length).toBeGreaterThan(3);
    expect(named.filter((name) => !titles.some((title) => title.startsWith(name)))).toEqual([]);
  });
});

describe('what the binary documents is in the README', () => {
  test("every command's every long option", () => {
    const options = new Set<string>();
    const walk = (command: Command) => {
      for (const option of command.options) if (option.long) options.add(option.long);
      command.commands.forEach(walk);
    };
    walk(buildProgram());
    const missing = [...options].filter((long) => !new RegExp(`${long}(?![\\w-])`).test(readme));
    expect(options.size).toBeGreaterThan(30);
    expect(missing).toEqual([]);
  });

  test('every variable of `vredact help environment`, in the Settings section', async () => {
    const help = await runCli(['help', 'environment'], { env: env() });
    expect(help.exitCode).toBe(0);
    const variables = [...new Set(String(help.stdout).match(/\bVREDACT_[A-Z_]+/g))];
    expect(variables.length).toBeGreaterThan(5);
    const settings = section(readme, 'Settings');
    expect(variables.filter((name) => !settings.includes(name))).toEqual([]);
  });

  test('every code of `vredact help exit-codes`, in the Exit codes table', async () => {
    const help = await runCli(['help', 'exit-codes'], { env: env() });
    expect(help.exitCode).toBe(0);
    const codes = [...String(help.stdout).matchAll(/^ {2}(\d+) /gm)].map((code) => code[1]);
    expect(codes).toEqual(['0', '1', '2', '3', '130']);
    const table = section(readme, 'Exit codes');
    expect(codes.filter((code) => !table.includes(`| ${code} |`))).toEqual([]);
  });
});
