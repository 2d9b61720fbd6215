/**
 * band_math expressions: a recursive-descent parser that emits a postfix program (never eval), and
 * an evaluator that runs the program over chunks of pixels with an explicit value stack. Nothing in
 * evaluation recurses, so the length of an expression costs time, not stack; its memory is one
 * chunk per stack slot.
 */

export type BinOp = '+' | '-' | '*' | '/' | '<' | '<=' | '>' | '>=' | '==' | '!=' | '&&' | '||';

/** One postfix instruction. `min`/`max` take two operands: n arguments compile to n − 1 folds. */
export type Op =
  | { k: 'num'; v: number }
  | { k: 'band'; b: number }
  | { k: 'neg' } | { k: 'abs' } | { k: 'sqrt' }
  | { k: 'bin'; op: BinOp }
  | { k: 'min' } | { k: 'max' };

/** A compiled expression: plain data, so it crosses to worker threads as is. */
export interface ExprProgram {
  ops: Op[];
  /** Bands referenced (1-based, sorted). */
  bands: number[];
  /** Deepest value stack the program needs. */
  maxStack: number;
  /** The result is a comparison or logical operator (0/1 values: a mask). */
  comparison: boolean;
}

/** Longest expression accepted, in characters. */
export const MAX_EXPRESSION_LENGTH = 100_000;
/** Deepest nesting of parentheses, function calls and signs. */
export const MAX_EXPRESSION_DEPTH = 256;
/** Most instructions (numbers, bands, operators) in one expression. */
export const MAX_EXPRESSION_TERMS = 100_000;

/** Parse error with the 1-based column of the problem. */
export class ExprError extends Error {
  constructor(msg: string, readonly position: number) { super(msg); }
}

type Tok = { k: 'num' | 'id' | 'op' | 'end' | 'err'; s: string; pos: number };

const NUM = /(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y;
const ID = /[A-Za-z_][A-Za-z0-9_]*/y;
const SPACE = /\s/;

/** A character as it can be shown in a message (whole code point, control characters escaped). */
function shown(src: string, i: number): string {
  const cp = src.codePointAt(i)!;
  const ch = String.fromCodePoint(cp);
  return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp === 0x2028 || cp === 0x2029 ? JSON.stringify(ch).slice(1, -1) : ch;
}

function lex(src: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (SPACE.test(c)) { i++; continue; }
    const start = i;
    if ((c >= '0' && c <= '9') || c === '.') {
      NUM.lastIndex = i;
      const m = NUM.exec(src);
      // Lexing problems become error tokens so the parser reports the first problem in reading order.
      if (!m) { toks.push({ k: 'err', s: `unexpected "${c}"`, pos: start + 1 }); i++; continue; }
      toks.push({ k: 'num', s: m[0], pos: start + 1 }); i += m[0].length; continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      ID.lastIndex = i;
      const m = ID.exec(src)!;
      toks.push({ k: 'id', s: m[0], pos: start + 1 }); i += m[0].length; continue;
    }
    const two = src.slice(i, i + 2);
    if (two === '<=' || two === '>=' || two === '==' || two === '!=' || two === '&&' || two === '||') { toks.push({ k: 'op', s: two, pos: start + 1 }); i += 2; continue; }
    if ('+-*/()<>,'.includes(c)) { toks.push({ k: 'op', s: c, pos: start + 1 }); i++; continue; }
    const ch = shown(src, i);
    toks.push({ k: 'err', s: `unexpected character "${ch}"`, pos: start + 1 });
    i += String.fromCodePoint(src.codePointAt(i)!).length;
  }
  toks.push({ k: 'end', s: '', pos: src.length + 1 });
  return toks;
}

const COMPARISONS = new Set<string>(['<', '<=', '>', '>=', '==', '!=', '&&', '||']);

/** Compiles `src`; `bandCount` (when given) bounds b1..bn. Throws ExprError naming the position. */
export function compileExpr(src: string, bandCount?: number): ExprProgram {
  if (typeof src !== 'string' || !src.trim()) throw new ExprError('expression is empty', 1);
  if (src.length > MAX_EXPRESSION_LENGTH) {
    throw new ExprError(`expression is ${src.length} characters long; at most ${MAX_EXPRESSION_LENGTH} are accepted (split the computation into several band_math steps)`, MAX_EXPRESSION_LENGTH + 1);
  }
  const toks = lex(src);
  const ops: Op[] = [];
  const bands = new Set<number>();
  let p = 0, depth = 0, sp = 0, maxStack = 0;
  const peek = () => toks[p];
  const emit = (op: Op, pushes: number) => {
    if (ops.length >= MAX_EXPRESSION_TERMS) {
      throw new ExprError(`expression has more than ${MAX_EXPRESSION_TERMS} terms (at position ${toks[Math.max(0, p - 1)].pos}); split the computation into several band_math steps`, toks[Math.max(0, p - 1)].pos);
    }
    ops.push(op);
    sp += pushes;
    if (sp > maxStack) maxStack = sp;
  };
  const eat = (s: string): boolean => { if (toks[p].k === 'op' && toks[p].s === s) { p++; return true; } return false; };
  const fail = (what: string): never => {
    const t = peek();
    throw new ExprError(`${what} at position ${t.pos}${t.k === 'end' ? ' (end of expression)' : ` (found "${t.s}")`}`, t.pos);
  };
  const deeper = () => {
    if (++depth > MAX_EXPRESSION_DEPTH) {
      const t = peek();
      throw new ExprError(`expression nests deeper than ${MAX_EXPRESSION_DEPTH} levels (parentheses, function calls and signs) at position ${t.pos}; simplify it`, t.pos);
    }
  };
  const binary = (next: () => void, set: string[]) => (): void => {
    next();
    for (;;) {
      const t = peek();
      if (t.k === 'op' && set.includes(t.s)) { p++; next(); emit({ k: 'bin', op: t.s as BinOp }, -1); } else return;
    }
  };
  const primary = (): void => {
    const t = peek();
    if (t.k === 'err') throw new ExprError(`${t.s} at position ${t.pos}`, t.pos);
    if (t.k === 'num') {
      const v = Number(t.s);
      if (!Number.isFinite(v)) throw new ExprError(`number ${t.s.length > 24 ? `${t.s.slice(0, 24)}…` : t.s} at position ${t.pos} is too large`, t.pos);
      p++; emit({ k: 'num', v }, 1); return;
    }
    if (t.k === 'op' && t.s === '(') {
      p++; deeper(); orExpr(); depth--;
      if (!eat(')')) fail('expected ")"');
      return;
    }
    if (t.k === 'id') {
      const m = /^[bB](\d+)$/.exec(t.s);
      if (m) {
        const b = Number(m[1]);
        if (b < 1 || (bandCount !== undefined && b > bandCount)) throw new ExprError(`band ${t.s.length > 24 ? `${t.s.slice(0, 24)}…` : t.s} at position ${t.pos} is out of range (the image has ${bandCount} band${bandCount === 1 ? '' : 's'}: b1..b${bandCount})`, t.pos);
        p++; bands.add(b); emit({ k: 'band', b }, 1); return;
      }
      const f = t.s.toLowerCase();
      if (f === 'min' || f === 'max' || f === 'abs' || f === 'sqrt') {
        p++;
        if (!eat('(')) fail(`expected "(" after ${f}`);
        deeper();
        orExpr();
        let n = 1;
        // min/max fold one argument at a time: the stack never holds more than two of them.
        while (eat(',')) { orExpr(); n++; if (f === 'min' || f === 'max') emit({ k: f }, -1); }
        if (!eat(')')) fail('expected ")"');
        depth--;
        const one = f === 'abs' || f === 'sqrt';
        if ((one && n !== 1) || (!one && n < 2)) throw new ExprError(`${f} at position ${t.pos} takes ${one ? 'one argument' : 'two or more arguments'}`, t.pos);
        if (one) emit({ k: f }, 0);
        return;
      }
      throw new ExprError(`unknown name "${t.s.length > 32 ? `${t.s.slice(0, 32)}…` : t.s}" at position ${t.pos}; use b1..bn, numbers, min, max, abs, sqrt`, t.pos);
    }
    fail('expected a number, band (b1..bn), function or "("');
  };
  const unary = (): void => {
    if (eat('-')) { deeper(); unary(); depth--; emit({ k: 'neg' }, 0); return; }
    if (eat('+')) { deeper(); unary(); depth--; return; }
    primary();
  };
  const mul = binary(unary, ['*', '/']);
  const add = binary(mul, ['+', '-']);
  const cmp = binary(add, ['<', '<=', '>', '>=', '==', '!=']);
  const andExpr = binary(cmp, ['&&']);
  const orExpr = binary(andExpr, ['||']);
  orExpr();
  if (peek().k === 'err') throw new ExprError(`${peek().s} at position ${peek().pos}`, peek().pos);
  if (peek().k !== 'end') fail('unexpected token');
  const last = ops[ops.length - 1];
  return { ops, bands: [...bands].sort((a, b) => a - b), maxStack, comparison: last.k === 'bin' && COMPARISONS.has(last.op) };
}

/** Pixels evaluated per pass: the value stack holds maxStack arrays of this length. */
const CHUNK = 4096;

/**
 * Evaluates over `n` pixels; `bands` maps band number → values. NaN propagates (also through
 * comparisons and min/max), division by zero and the square root of a negative number give NaN.
 */
export function evalProgram(prog: ExprProgram, bands: Map<number, ArrayLike<number>>, n: number): Float64Array {
  const out = new Float64Array(n);
  const stack: Float64Array[] = [];
  for (let k = 0; k < prog.maxStack; k++) stack.push(new Float64Array(Math.min(CHUNK, Math.max(1, n))));
  for (const b of prog.bands) if (!bands.has(b)) throw new Error(`band_math: band b${b} was not read`);
  for (let s = 0; s < n; s += CHUNK) {
    const m = Math.min(CHUNK, n - s);
    let sp = 0;
    for (const op of prog.ops) {
      switch (op.k) {
        case 'num': stack[sp++].fill(op.v, 0, m); break;
        case 'band': { const src = bands.get(op.b)!, d = stack[sp++]; for (let i = 0; i < m; i++) d[i] = src[s + i]; break; }
        case 'neg': { const a = stack[sp - 1]; for (let i = 0; i < m; i++) a[i] = -a[i]; break; }
        case 'abs': { const a = stack[sp - 1]; for (let i = 0; i < m; i++) a[i] = Math.abs(a[i]); break; }
        case 'sqrt': { const a = stack[sp - 1]; for (let i = 0; i < m; i++) a[i] = a[i] < 0 ? NaN : Math.sqrt(a[i]); break; }
        case 'min': { const a = stack[sp - 2], b = stack[sp - 1]; sp--; for (let i = 0; i < m; i++) { const x = a[i], y = b[i]; a[i] = x !== x || y !== y ? NaN : Math.min(x, y); } break; }
        case 'max': { const a = stack[sp - 2], b = stack[sp - 1]; sp--; for (let i = 0; i < m; i++) { const x = a[i], y = b[i]; a[i] = x !== x || y !== y ? NaN : Math.max(x, y); } break; }
        case 'bin': { const a = stack[sp - 2], b = stack[sp - 1]; sp--; binary(op.op, a, b, m); break; }
      }
    }
    out.set(stack[0].subarray(0, m), s);
  }
  return out;
}

function binary(op: BinOp, a: Float64Array, b: Float64Array, m: number): void {
  const nan = (i: number) => a[i] !== a[i] || b[i] !== b[i];
  switch (op) {
    case '+': for (let i = 0; i < m; i++) a[i] += b[i]; break;
    case '-': for (let i = 0; i < m; i++) a[i] -= b[i]; break;
    case '*': for (let i = 0; i < m; i++) a[i] *= b[i]; break;
    case '/': for (let i = 0; i < m; i++) a[i] = b[i] === 0 ? NaN : a[i] / b[i]; break;
    case '<': for (let i = 0; i < m; i++) a[i] = nan(i) ? NaN : a[i] < b[i] ? 1 : 0; break;
    case '<=': for (let i = 0; i < m; i++) a[i] = nan(i) ? NaN : a[i] <= b[i] ? 1 : 0; break;
    case '>': for (let i = 0; i < m; i++) a[i] = nan(i) ? NaN : a[i] > b[i] ? 1 : 0; break;
    case '>=': for (let i = 0; i < m; i++) a[i] = nan(i) ? NaN : a[i] >= b[i] ? 1 : 0; break;
    case '==': for (let i = 0; i < m; i++) a[i] = nan(i) ? NaN : a[i] === b[i] ? 1 : 0; break;
    case '!=': for (let i = 0; i < m; i++) a[i] = nan(i) ? NaN : a[i] !== b[i] ? 1 : 0; break;
    case '&&': for (let i = 0; i < m; i++) a[i] = nan(i) ? NaN : a[i] && b[i] ? 1 : 0; break;
    case '||': for (let i = 0; i < m; i++) a[i] = nan(i) ? NaN : a[i] || b[i] ? 1 : 0; break;
  }
}

/** The expression for a message: at most `max` characters. */
export function clipExpression(src: string, max = 80): string {
  return src.length <= max ? src : `${src.slice(0, max)}… (${src.length} characters)`;
}
