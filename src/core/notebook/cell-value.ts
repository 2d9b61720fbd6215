/** Argument values in tool cells: JSON-ish, with bare strings and `$cell.output` references. */
import type { ArgValue, OutputReference } from './types';

const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const REFERENCE = /^\$([A-Za-z_][A-Za-z0-9_-]*)\.([A-Za-z_][A-Za-z0-9_]*)$/;

export class ValueSyntaxError extends Error {
  constructor(message: string, readonly offset: number) {
    super(message);
  }
}

export function isReference(v: unknown): v is OutputReference {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && '$ref' in v &&
    typeof (v as OutputReference).$ref?.cell === 'string' && typeof (v as OutputReference).$ref?.output === 'string';
}

export function reference(cell: string, output: string): OutputReference {
  return { $ref: { cell, output } };
}

/** Parses the text after `name:`. A bare value runs to the end of the line, so paths and
 *  expressions need no quotes; `[..]` and `{..}` start lists and mappings. */
export function parseValue(text: string): ArgValue {
  const t = text.trim();
  if (t === '') throw new ValueSyntaxError('missing value after ":"', 0);
  const lead = text.length - text.trimStart().length;
  if (t[0] === '[' || t[0] === '{' || t[0] === '"') {
    const p = new FlowParser(t);
    const v = p.value();
    p.skipSpace();
    if (p.pos < t.length) throw new ValueSyntaxError(`unexpected "${t.slice(p.pos, p.pos + 10)}" after the value`, lead + p.pos);
    return v;
  }
  return scalar(t, lead);
}

function scalar(t: string, offset: number): ArgValue {
  if (t === 'true') return true;
  if (t === 'false') return false;
  if (t === 'null') return null;
  if (NUMBER.test(t)) {
    const n = Number(t);
    // 1e999 would read as Infinity, which a cell (or JSON) cannot write back.
    if (!Number.isFinite(n)) throw new ValueSyntaxError(`${t} is too large a number (the largest is about 1.8e308); quote it to pass it as text`, offset);
    return n;
  }
  if (t[0] === '$') {
    const m = REFERENCE.exec(t);
    if (!m) throw new ValueSyntaxError(`"${t}" is not a reference: write $cell.output, e.g. $ndvi.index`, offset);
    return reference(m[1], m[2]);
  }
  return t;
}

class FlowParser {
  pos = 0;
  constructor(private readonly s: string) {}

  skipSpace(): void {
    while (this.pos < this.s.length && /\s/.test(this.s[this.pos])) this.pos++;
  }

  value(): ArgValue {
    this.skipSpace();
    const c = this.s[this.pos];
    if (c === '[') return this.list();
    if (c === '{') return this.mapping();
    if (c === '"') return this.quoted();
    const start = this.pos;
    while (this.pos < this.s.length && !',]}'.includes(this.s[this.pos])) this.pos++;
    const token = this.s.slice(start, this.pos).trim();
    if (token === '') throw new ValueSyntaxError('missing value', start);
    return scalar(token, start);
  }

  private quoted(): string {
    const start = this.pos;
    this.pos++;
    while (this.pos < this.s.length && this.s[this.pos] !== '"') this.pos += this.s[this.pos] === '\\' ? 2 : 1;
    if (this.pos >= this.s.length) throw new ValueSyntaxError('unterminated string', start);
    this.pos++;
    try {
      return JSON.parse(this.s.slice(start, this.pos)) as string;
    } catch {
      throw new ValueSyntaxError('invalid escape in string', start);
    }
  }

  private list(): ArgValue[] {
    const out: ArgValue[] = [];
    this.pos++;
    this.skipSpace();
    if (this.s[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.skipSpace();
      const c = this.s[this.pos++];
      if (c === ']') return out;
      if (c !== ',') throw new ValueSyntaxError('expected "," or "]" in list', this.pos - 1);
    }
  }

  private mapping(): { [k: string]: ArgValue } {
    const out: { [k: string]: ArgValue } = {};
    this.pos++;
    this.skipSpace();
    if (this.s[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      const keyStart = this.pos;
      let key: string;
      if (this.s[this.pos] === '"') key = this.quoted();
      else {
        while (this.pos < this.s.length && /[A-Za-z0-9_.-]/.test(this.s[this.pos])) this.pos++;
        key = this.s.slice(keyStart, this.pos);
      }
      if (!key || key.startsWith('$')) throw new ValueSyntaxError('expected a key in mapping', keyStart);
      this.skipSpace();
      if (this.s[this.pos++] !== ':') throw new ValueSyntaxError(`expected ":" after key "${key}"`, this.pos - 1);
      setOwn(out, key, this.value());
      this.skipSpace();
      const c = this.s[this.pos++];
      if (c === '}') return out;
      if (c !== ',') throw new ValueSyntaxError('expected "," or "}" in mapping', this.pos - 1);
    }
  }
}

/** Prints a value so that `parseValue(printValue(v))` gives `v` back. */
export function printValue(v: ArgValue, inFlow = false): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`cannot write ${v} in a tool cell`);
    return String(v);
  }
  if (typeof v === 'string') return bareSafe(v, inFlow) ? v : JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((x) => printValue(x, true)).join(', ')}]`;
  if (isReference(v)) return `$${v.$ref.cell}.${v.$ref.output}`;
  const entries = Object.entries(v).map(([k, x]) => `${/^[A-Za-z0-9_.-]+$/.test(k) ? k : JSON.stringify(k)}: ${printValue(x, true)}`);
  return `{${entries.join(', ')}}`;
}

function bareSafe(s: string, inFlow: boolean): boolean {
  if (s === '' || s !== s.trim() || /[\n\r]/.test(s)) return false;
  if ('[{"$#'.includes(s[0])) return false;
  if (s === 'true' || s === 'false' || s === 'null' || NUMBER.test(s)) return false;
  if (inFlow && /[,\[\]{}"]/.test(s)) return false;
  return true;
}

/** `o[k] = v`, except that a key "__proto__" becomes a key like any other instead of replacing the prototype. */
export function setOwn<T>(o: Record<string, T>, k: string, v: T): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

export function isIdentifier(s: string): boolean {
  return IDENT.test(s);
}

/** Every reference inside a value, depth first. */
export function referencesIn(v: ArgValue): OutputReference[] {
  if (isReference(v)) return [v];
  if (Array.isArray(v)) return v.flatMap(referencesIn);
  if (v && typeof v === 'object') return Object.values(v).flatMap(referencesIn);
  return [];
}
