import { randomUUID } from 'node:crypto';

/**
 * `length` (at most 30) random hex digits. Node.js hands out UUIDs from a cached pool of random bytes,
 * where randomBytes makes a system call each time, and each upload takes three of these: its name,
 * its form's boundary and its output's temporary name.
 */
export function randomHex(length: number): string {
  const hex = randomUUID().replaceAll('-', '');
  // A version 4 UUID fixes its 13th digit (the version) and part of its 17th (the variant).
  return `${hex.slice(0, 12)}${hex.slice(13, 16)}${hex.slice(17)}`.slice(0, length);
}
