/** A word as a POSIX shell reads it back: as it is when it has no special characters, else in single quotes. */
export function shellQuote(word: string): string {
  return /^[-A-Za-z0-9_./=:,@%+]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
