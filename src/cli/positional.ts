/**
 * What each positional argument of the command tree names. Only a path of this machine is completed
 * from its file system: a job id or a file name on the service names nothing here, so a shell offers
 * nothing for it (as gh does for an id it cannot list offline) rather than the files in the folder.
 */
import { Argument } from 'commander';

/** `path`: a file, folder or pattern of this machine; the rest name things the shell cannot list. */
export type PositionalKind = 'path' | 'job-id' | 'service-file' | 'value';

export class Positional extends Argument {
  constructor(
    name: string,
    description: string,
    readonly kind: PositionalKind,
  ) {
    super(name, description);
  }
}

export function positional(name: string, description: string, kind: PositionalKind): Positional {
  return new Positional(name, description, kind);
}

/** An argument declared without a kind (a setting's key or value, a help topic) is a value. */
export function kindOf(argument: Argument): PositionalKind {
  return argument instanceof Positional ? argument.kind : 'value';
}
