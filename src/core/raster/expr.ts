/** band_math expressions: a recursive-descent parser to a small AST (never eval) and a per-pixel evaluator. */

export type Expr =
  | { t: 'num'; v: number }
  | { t: 'band'; b: number }
  | { t: 'neg'; a: Expr }
  | { t: 'bin'; op: '+' | '-' | '*' | '/' | '<' | '<=' | '>' | '>=' | '==' | '!=' | '&&' | '||'; a: Expr; b: Expr }
  | { t: 'call'; f: 'min' | 'max' | 'abs' | 'sqrt'; args: Expr[] };

/** Parse error with the 1-based column of the problem. */
export class ExprError extends Error {
  constructor(msg: string, readonly position: number) { super(msg); }
}

type Tok = { k: 'num' | 'id' | 'op' | 'end' | 'err'; s: string; pos: number };

function lex(src: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) { i++; continue; }
    const start = i;
    if (/[0-9.]/.test(c)) {
      const m = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(src.slice(i));
      // Lexing problems become error tokens so the parser reports the first problem in reading order.
      if (!m) { toks.push({ k: 'err', s: `unexpected "${c}"`, pos: start + 1 }); i++; continue; }
      toks.push({ k: 'num', s: m[0], pos: start + 1 }); i += m[0].length; continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))!;
      toks.push({ k: 'id', s: m[0], pos: start + 1 }); i += m[0].length; continue;
    }
    const two = src.slice(i, i + 2);
    if (['<=', '>=', '==', '!=', '&&', '||'].includes(two)) { toks.push({ k: 'op', s: two, pos: start + 1 }); i += 2; continue; }
    if ('+-*/()<>,'.includes(c)) { toks.push({ k: 'op', s: c, pos: start + 1 }); i++; continue; }
    toks.push({ k: 'err', s: `unexpected character "${c}"`, pos: start + 1 }); i++;
  }
  toks.push({ k: 'end', s: '', pos: src.length + 1 });
  return toks;
}

/** Parses `src`; `bandCount` (when given) bounds b1..bn. */
export function parseExpr(src: string, bandCount?: number): Expr {
  if (typeof src !== 'string' || !src.trim()) throw new ExprError('expression is empty', 1);
  const toks = lex(src);
  let p = 0;
  const peek = () => toks[p];
  const eat = (s: string): boolean => { if (toks[p].k === 'op' && toks[p].s === s) { p++; return true; } return false; };
  const fail = (what: string): never => {
    const t = peek();
    throw new ExprError(`${what} at position ${t.pos}${t.k === 'end' ? ' (end of expression)' : ` (found "${t.s}")`}`, t.pos);
  };
  const binary = (next: () => Expr, ops: string[]) => (): Expr => {
    let a = next();
    for (;;) {
      const t = peek();
      if (t.k === 'op' && ops.includes(t.s)) { p++; a = { t: 'bin', op: t.s as any, a, b: next() }; } else return a;
    }
  };
  const primary = (): Expr => {
    const t = peek();
    if (t.k === 'err') throw new ExprError(`${t.s} at position ${t.pos}`, t.pos);
    if (t.k === 'num') { p++; return { t: 'num', v: Number(t.s) }; }
    if (t.k === 'op' && t.s === '(') { p++; const e = orExpr(); if (!eat(')')) fail('expected ")"'); return e; }
    if (t.k === 'op' && t.s === '-') { p++; return { t: 'neg', a: unary() }; }
    if (t.k === 'id') {
      const m = /^[bB](\d+)$/.exec(t.s);
      if (m) {
        const b = Number(m[1]);
        if (b < 1 || (bandCount !== undefined && b > bandCount)) throw new ExprError(`band ${t.s} at position ${t.pos} is out of range (the image has ${bandCount} band${bandCount === 1 ? '' : 's'}: b1..b${bandCount})`, t.pos);
        p++; return { t: 'band', b };
      }
      const f = t.s.toLowerCase();
      if (f === 'min' || f === 'max' || f === 'abs' || f === 'sqrt') {
        p++;
        if (!eat('(')) fail(`expected "(" after ${f}`);
        const args: Expr[] = [orExpr()];
        while (eat(',')) args.push(orExpr());
        if (!eat(')')) fail('expected ")"');
        const want = f === 'abs' || f === 'sqrt' ? 1 : -1;
        if ((want === 1 && args.length !== 1) || (want === -1 && args.length < 2)) throw new ExprError(`${f} at position ${t.pos} takes ${want === 1 ? 'one argument' : 'two or more arguments'}`, t.pos);
        return { t: 'call', f, args };
      }
      throw new ExprError(`unknown name "${t.s}" at position ${t.pos}; use b1..bn, numbers, min, max, abs, sqrt`, t.pos);
    }
    return fail('expected a number, band (b1..bn), function or "("');
  };
  const unary = (): Expr => (eat('-') ? { t: 'neg', a: unary() } : eat('+') ? unary() : primary());
  const mul = binary(unary, ['*', '/']);
  const add = binary(mul, ['+', '-']);
  const cmp = binary(add, ['<', '<=', '>', '>=', '==', '!=']);
  const andExpr = binary(cmp, ['&&']);
  const orExpr = binary(andExpr, ['||']);
  const e = orExpr();
  if (peek().k === 'err') throw new ExprError(`${peek().s} at position ${peek().pos}`, peek().pos);
  if (peek().k !== 'end') fail('unexpected token');
  return e;
}

/** Bands referenced by the expression (1-based, sorted). */
export function exprBands(e: Expr, acc = new Set<number>()): number[] {
  if (e.t === 'band') acc.add(e.b);
  else if (e.t === 'neg') exprBands(e.a, acc);
  else if (e.t === 'bin') { exprBands(e.a, acc); exprBands(e.b, acc); }
  else if (e.t === 'call') e.args.forEach((a) => exprBands(a, acc));
  return [...acc].sort((a, b) => a - b);
}

/**
 * Evaluates over whole arrays (vectorised per node: much faster than per-pixel tree walks).
 * `bands` maps band number → values; NaN propagates, division by zero → NaN.
 */
export function evalExpr(e: Expr, bands: Map<number, Float32Array>, n: number): Float64Array {
  switch (e.t) {
    case 'num': return new Float64Array(n).fill(e.v);
    case 'band': { const src = bands.get(e.b)!; const o = new Float64Array(n); for (let i = 0; i < n; i++) o[i] = src[i]; return o; }
    case 'neg': { const a = evalExpr(e.a, bands, n); for (let i = 0; i < n; i++) a[i] = -a[i]; return a; }
    case 'call': {
      const xs = e.args.map((a) => evalExpr(a, bands, n));
      const o = xs[0];
      if (e.f === 'abs') for (let i = 0; i < n; i++) o[i] = Math.abs(o[i]);
      else if (e.f === 'sqrt') for (let i = 0; i < n; i++) o[i] = o[i] < 0 ? NaN : Math.sqrt(o[i]);
      else for (const x of xs.slice(1)) {
        if (e.f === 'min') for (let i = 0; i < n; i++) { const v = x[i]; o[i] = o[i] !== o[i] || v !== v ? NaN : Math.min(o[i], v); }
        else for (let i = 0; i < n; i++) { const v = x[i]; o[i] = o[i] !== o[i] || v !== v ? NaN : Math.max(o[i], v); }
      }
      return o;
    }
    case 'bin': {
      const a = evalExpr(e.a, bands, n), b = evalExpr(e.b, bands, n);
      const nan = (i: number) => a[i] !== a[i] || b[i] !== b[i];
      switch (e.op) {
        case '+': for (let i = 0; i < n; i++) a[i] += b[i]; break;
        case '-': for (let i = 0; i < n; i++) a[i] -= b[i]; break;
        case '*': for (let i = 0; i < n; i++) a[i] *= b[i]; break;
        case '/': for (let i = 0; i < n; i++) a[i] = b[i] === 0 ? NaN : a[i] / b[i]; break;
        case '<': for (let i = 0; i < n; i++) a[i] = nan(i) ? NaN : a[i] < b[i] ? 1 : 0; break;
        case '<=': for (let i = 0; i < n; i++) a[i] = nan(i) ? NaN : a[i] <= b[i] ? 1 : 0; break;
        case '>': for (let i = 0; i < n; i++) a[i] = nan(i) ? NaN : a[i] > b[i] ? 1 : 0; break;
        case '>=': for (let i = 0; i < n; i++) a[i] = nan(i) ? NaN : a[i] >= b[i] ? 1 : 0; break;
        case '==': for (let i = 0; i < n; i++) a[i] = nan(i) ? NaN : a[i] === b[i] ? 1 : 0; break;
        case '!=': for (let i = 0; i < n; i++) a[i] = nan(i) ? NaN : a[i] !== b[i] ? 1 : 0; break;
        case '&&': for (let i = 0; i < n; i++) a[i] = nan(i) ? NaN : a[i] && b[i] ? 1 : 0; break;
        case '||': for (let i = 0; i < n; i++) a[i] = nan(i) ? NaN : a[i] || b[i] ? 1 : 0; break;
      }
      return a;
    }
  }
}
