/** A small argv parser: positionals, `--name value`, `--name=value`, repeatable options, boolean flags. */

export interface ParsedArgs {
  positionals: string[];
  /** Every value given for an option, in order (repeatable options keep all of them). */
  options: Map<string, string[]>;
  flags: Set<string>;
}

/** Options that never take a value. */
const BOOLEAN_FLAGS = new Set(['json', 'no-builtin', 'no-practice', 'help', 'allow-download', 'verbose', 'no-fit', 'no-trees', 'with-practice', 'list']);

export function parseArgs(argv: string[]): ParsedArgs {
  const out: ParsedArgs = { positionals: [], options: new Map(), flags: new Set() };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      out.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith('--') || a.length === 2) {
      out.positionals.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
    if (BOOLEAN_FLAGS.has(name) && eq < 0) {
      out.flags.add(name);
      continue;
    }
    let value: string;
    if (eq > 0) value = a.slice(eq + 1);
    else if (i + 1 < argv.length) value = argv[++i];
    else throw new UsageError(`option --${name} needs a value`);
    const list = out.options.get(name) ?? [];
    list.push(value);
    out.options.set(name, list);
  }
  return out;
}

export class UsageError extends Error {}

export function opt(args: ParsedArgs, name: string): string | undefined {
  const v = args.options.get(name);
  return v ? v[v.length - 1] : undefined;
}

export function optAll(args: ParsedArgs, name: string): string[] {
  return args.options.get(name) ?? [];
}

export function optInt(args: ParsedArgs, name: string, fallback: number): number {
  const v = opt(args, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--${name} must be a positive integer, got "${v}"`);
  return n;
}
