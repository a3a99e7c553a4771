/** Bad usage: an unknown command or option, a missing or malformed value. The CLI exits with 2. */
export class UsageError extends Error {
  /** The command the usage belongs to, for the usage line. */
  public readonly command?: string;

  constructor(message: string, command?: string) {
    super(message);
    this.name = 'UsageError';
    this.command = command;
  }
}
