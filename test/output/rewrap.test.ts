/** Which terminals are known to rewrap a narrowed line, and the rows a line takes. */
import { describe, expect, it } from 'vitest';
import { rowsOf, terminalRewraps } from '../../src/output/rewrap.js';

describe('terminalRewraps', () => {
  it('says yes only where the terminal is certain: tmux, or a TERM that only a rewrapping terminal sets', () => {
    expect(terminalRewraps({ TMUX: '/tmp/tmux-1000/default,1,0', TERM: 'tmux-256color' })).toBe(true);
    expect(terminalRewraps({ TMUX: '/tmp/tmux-1000/default,1,0', TERM: 'screen' })).toBe(true);
    expect(terminalRewraps({ TERM: 'xterm-kitty' })).toBe(true);
  });

  it('says no for xterm, GNU screen, a terminal started inside tmux, and variables a child inherits', () => {
    expect(terminalRewraps({ TERM: 'xterm-256color', XTERM_VERSION: 'XTerm(390)' })).toBe(false);
    expect(terminalRewraps({ TERM: 'screen', STY: '1234.pts-0.host' })).toBe(false);
    expect(
      terminalRewraps({ TERM: 'screen', STY: '1234.pts-0.host', TMUX: '/tmp/tmux-1000/default,1,0' }),
    ).toBe(false);
    // xterm started from a tmux pane inherits TMUX, and sets its own TERM.
    expect(terminalRewraps({ TMUX: '/tmp/tmux-1000/default,1,0', TERM: 'xterm' })).toBe(false);
    // xterm started from GNOME Terminal inherits VTE_VERSION.
    expect(terminalRewraps({ TERM: 'xterm-256color', VTE_VERSION: '7600' })).toBe(false);
    expect(terminalRewraps({ TERM: 'linux' })).toBe(false);
    expect(terminalRewraps({})).toBe(false);
  });
});

describe('rowsOf', () => {
  it('counts the rows a line takes, at least one', () => {
    expect(rowsOf(56, 25)).toBe(3);
    expect(rowsOf(50, 25)).toBe(2);
    expect(rowsOf(0, 25)).toBe(1);
    expect(rowsOf(10, 0)).toBe(10);
  });
});
