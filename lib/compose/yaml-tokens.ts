import {
  Composer,
  Document,
  DocumentOptions,
  Lexer,
  LineCounter,
  ParseOptions,
  Parser,
  SchemaOptions,
  YAMLParseError,
} from 'yaml';
import { ComposeError } from './errors';

// The lexer's side of the YAML reader: the limits against hostile input, and the token check that enforces the ones
// a parser would reach too late (nesting, aliases, values), before the parser sees a token.

/** Limits against hostile input. */
export interface YamlLimits {
  /** Most aliases resolved in one file. */
  readonly maxAliases: number;
  /** Most values in one file after aliases are expanded (bounds memory and time for alias bombs). */
  readonly maxNodes: number;
  /** Deepest nesting of maps and lists. */
  readonly maxDepth: number;
}

export const DEFAULT_YAML_LIMITS: YamlLimits = { maxAliases: 1_000, maxNodes: 100_000, maxDepth: 100 };

/** The options of yaml's composer, for the full reader and for the block reader's scalars. */
export const COMPOSER_OPTIONS: Readonly<DocumentOptions & ParseOptions & SchemaOptions> = {
  prettyErrors: false,
  // yaml checks unique keys with a scan of the map per key (quadratic: 40000 keys take half a minute); the
  // walker checks them with a Map instead.
  uniqueKeys: false,
  merge: false, // merge keys are resolved by the walker, with the alias budget
  strict: true,
  keepSourceTokens: false,
};

/**
 * What `parseDocument` does (lexer, parser, composer), with the lexer's tokens checked by {@link TokenCheck} before
 * they go to the parser: the text is lexed once, and refused at the first excess, before anything is parsed.
 */
export function parseChecked(
  text: string,
  file: string,
  limits: YamlLimits,
  lineCounter: LineCounter,
): Document.Parsed {
  const check = new TokenCheck(text, file, limits);
  const parser = new Parser(lineCounter.addNewLine);
  const composer = new Composer(COMPOSER_OPTIONS);
  // The whole text is checked before the parser sees a token (a refused file costs the lexer's time and no more
  // memory than its tokens, which are mostly one-character strings that V8 shares).
  const lexemes: string[] = [];
  for (const lexeme of new Lexer().lex(text)) {
    check.next(lexeme);
    lexemes.push(lexeme);
  }
  function* tokens() {
    lineCounter.addNewLine(0);
    for (const lexeme of lexemes) {
      yield* parser.next(lexeme);
    }
    yield* parser.end();
  }
  let doc: Document.Parsed | undefined;
  for (const next of composer.compose(tokens(), true, text.length)) {
    if (!doc) {
      doc = next;
    } else {
      doc.errors.push(
        new YAMLParseError(
          [next.range[0], next.range[1]],
          'MULTIPLE_DOCS',
          'Source contains multiple documents; please use YAML.parseAllDocuments()',
        ),
      );
      break;
    }
  }
  return doc!;
}

/** Tokens of yaml's lexer that are markers, not source text. */
const MARKERS = new Set(['\u0002', '\u0018', '\u001f']);

/**
 * Refuses text whose shape makes yaml's parser slow or hungry: flow collections nested past the depth limit (a
 * million `[` take a gigabyte), block indicators or node properties piled on one line (`- &a - &a …` parses in
 * quadratic time), more aliases than the alias limit and more scalars than twice the value limit. It sees every token
 * of the lexer before the parser sees any, holds nothing, and stops at the first excess.
 */
class TokenCheck {
  private offset = 0;
  private flow = 0;
  private perLine = 0;
  private aliases = 0;
  private scalars = 0;

  constructor(
    private readonly text: string,
    private readonly file: string,
    private readonly limits: YamlLimits,
  ) {}

  next(token: string): void {
    const limits = this.limits;
    if (MARKERS.has(token)) {
      if (token === '\u001f') {
        this.scalars += 1;
      }
      return;
    }
    switch (token[0]) {
      case '[':
      case '{':
        this.flow += 1;
        if (this.flow > limits.maxDepth) {
          this.deep();
        }
        break;
      case ']':
      case '}':
        this.flow = Math.max(0, this.flow - 1);
        break;
      case '\n':
      case '\r':
        this.perLine = 0;
        break;
      case '-':
      case '?':
      case ':':
      case '&':
      case '!':
        // Block indicators and anchors/tags on one line: each nests one level or decorates one node.
        if (this.flow === 0 && (this.perLine += 1) > limits.maxDepth) {
          this.deep();
        }
        break;
      case '*':
        this.aliases += 1;
        if (this.aliases > limits.maxAliases) {
          this.refuse(
            `the YAML uses more than ${limits.maxAliases} aliases`,
            "the file looks like an alias bomb; raise the loader's limits.maxAliases if the file is genuine",
          );
        }
        break;
      case '"':
      case "'":
        this.scalars += 1;
        break;
      default:
        break;
    }
    // Keys are scalars too, so a file within maxNodes values holds at most twice as many scalars.
    if (this.scalars > 2 * limits.maxNodes) {
      this.refuse(
        `the YAML holds more than ${2 * limits.maxNodes} keys and values`,
        "a compose file holds a few thousand at most; raise the loader's limits.maxNodes if the file is genuine",
      );
    }
    this.offset += token.length;
  }

  private deep(): never {
    return this.refuse(
      `the YAML is nested more than ${this.limits.maxDepth} levels deep`,
      'a compose file needs only a few levels of nesting; check the file is really a compose file',
    );
  }

  private refuse(problem: string, hint: string): never {
    const before = this.text.slice(0, this.offset);
    const line = before.split('\n').length;
    throw new ComposeError(problem, {
      at: { file: this.file, path: '', line, column: this.offset - before.lastIndexOf('\n') },
      hint,
    });
  }
}
