import { UsageError } from '../errors.js';

/**
 * The one rule for a flag typed with nothing after it (`--base-url "$URL"`, URL unset): a mistake,
 * never "not given". Taken as not given, it sent the config file's token to the config file's
 * service, or a batch without the avatar or the list of files the script meant.
 */
export function refuseEmptyFlag(value: string | undefined, flag: string, hint: string): void {
  if (value === '') throw new UsageError(`${flag} was given an empty value`, hint);
}
