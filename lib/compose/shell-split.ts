/**
 * Splits a command string into an argv like a POSIX shell (and Python's `shlex.split`, which compose uses):
 * whitespace separates words, single quotes are literal, double quotes allow `\"`, `\\`, `\$` and `` \` ``
 * escapes, and a backslash outside quotes escapes the next character. No expansion is done.
 *
 * Returns undefined when a quote is not closed, so the caller can raise a `ComposeError` with the location.
 */
export function shellSplit(text: string): string[] | undefined {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
      if (inWord) {
        words.push(word);
        word = '';
        inWord = false;
      }
      i += 1;
    } else if (ch === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) {
        return undefined;
      }
      word += text.slice(i + 1, close);
      inWord = true;
      i = close + 1;
    } else if (ch === '"') {
      i += 1;
      let closed = false;
      while (i < text.length) {
        const c = text[i];
        if (c === '\\' && i + 1 < text.length && '"\\$`\n'.includes(text[i + 1])) {
          if (text[i + 1] !== '\n') {
            word += text[i + 1];
          }
          i += 2;
        } else if (c === '"') {
          closed = true;
          i += 1;
          break;
        } else {
          word += c;
          i += 1;
        }
      }
      if (!closed) {
        return undefined;
      }
      inWord = true;
    } else if (ch === '\\') {
      if (i + 1 >= text.length) {
        return undefined;
      }
      if (text[i + 1] !== '\n') {
        word += text[i + 1];
        inWord = true;
      }
      i += 2;
    } else {
      word += ch;
      inWord = true;
      i += 1;
    }
  }
  if (inWord) {
    words.push(word);
  }
  return words;
}
