/** The shells `vredact completion` writes scripts for (apart, so the command tree loads no generator). */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];
