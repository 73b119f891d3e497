/** A mistake in the command line: shown with the usage text, exit code 2. */
export class UsageError extends Error {}

/** A command that cannot be carried out: shown alone, exit code 1. */
export class CommandError extends Error {}
