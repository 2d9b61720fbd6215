/**
 * Structural check of an hnswlib index file before the native addon reads it. hnswlib trusts every
 * number in the file: a neighbour id past the end, a level the element does not have, or an
 * element count larger than the file makes it read or write outside its buffers and kill the
 * process. A checksum beside the file does not help when the same hand changed both, so the file
 * itself is checked: the header against the dimension and M the index was built with and against
 * the file size, then every link list.
 */

/** hnswlib's header: 6 size_t, int maxlevel, uint32 entry point, 3 size_t, double mult, size_t ef_construction. */
const HEADER_BYTES = 96;
const NO_ENTRY = 0xffffffff;
/** More levels than any real graph has (levels grow with log(n) / log(M)). */
const MAX_LEVEL = 64;

export interface HnswFileExpectation {
  /** Vector dimension of the graph (the projected one for a projected index). */
  dimension: number;
  M: number;
  efConstruction: number;
  /** Labels that must be present and not deleted. */
  labels: readonly number[];
}

export interface HnswFileInfo { count: number; maxElements: number; maxLevel: number }

/** Why `buf` is not an index hnswlib can safely read for `expect`, or undefined when it is. */
export function hnswFileProblem(buf: Uint8Array, expect: HnswFileExpectation): string | undefined {
  try {
    checkHnswFile(buf, expect);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** Throws with the first inconsistency found; returns the counts read from the header. */
export function checkHnswFile(buf: Uint8Array, expect: HnswFileExpectation): HnswFileInfo {
  const size = buf.length;
  if (size < HEADER_BYTES) throw new Error(`${size} bytes, too short for an HNSW index header`);
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const u64 = (off: number, name: string): number => {
    const v = dv.getBigUint64(off, true);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`header field ${name} is ${v}, out of range`);
    return Number(v);
  };
  const { dimension: dim, M } = expect;
  const linksLevel0 = 2 * M * 4 + 4;
  const linksUpper = M * 4 + 4;
  const dataSize = dim * 4;
  const perElement = linksLevel0 + dataSize + 8;

  const offsetLevel0 = u64(0, 'offsetLevel0');
  const maxElements = u64(8, 'maxElements');
  const count = u64(16, 'curElementCount');
  const sizePerElement = u64(24, 'sizeDataPerElement');
  const labelOffset = u64(32, 'labelOffset');
  const offsetData = u64(40, 'offsetData');
  const maxLevel = dv.getInt32(48, true);
  const entry = dv.getUint32(52, true);
  const maxM = u64(56, 'maxM');
  const maxM0 = u64(64, 'maxM0');
  const fileM = u64(72, 'M');
  const mult = dv.getFloat64(80, true);
  const efConstruction = u64(88, 'efConstruction');

  const want = (name: string, got: number, expected: number) => {
    if (got !== expected) throw new Error(`header field ${name} is ${got}, expected ${expected} (dimension ${dim}, M ${M})`);
  };
  want('offsetLevel0', offsetLevel0, 0);
  want('sizeDataPerElement', sizePerElement, perElement);
  want('offsetData', offsetData, linksLevel0);
  want('labelOffset', labelOffset, linksLevel0 + dataSize);
  want('M', fileM, M);
  want('maxM', maxM, M);
  want('maxM0', maxM0, 2 * M);
  want('efConstruction', efConstruction, Math.max(expect.efConstruction, M));
  if (!(Math.abs(mult - 1 / Math.log(M)) < 1e-9)) throw new Error(`header field mult is ${mult}, expected 1/ln(${M})`);
  if (count > maxElements) throw new Error(`${count} elements in an index of capacity ${maxElements}`);
  // Capacity is allocated up front (and a lock per slot): keep it near what our writer ever asks for.
  if (maxElements > 2 * count + 1024) throw new Error(`capacity ${maxElements} is implausible for ${count} elements`);
  if (count < expect.labels.length) throw new Error(`${count} elements, but ${expect.labels.length} labels are recorded beside the index`);
  if (count * perElement > size - HEADER_BYTES) throw new Error(`${count} elements of ${perElement} bytes do not fit in ${size} bytes`);
  if (count === 0) {
    if (maxLevel !== -1 || entry !== NO_ENTRY) throw new Error('an empty index with an entry point');
  } else {
    if (maxLevel < 0 || maxLevel > MAX_LEVEL) throw new Error(`header field maxlevel is ${maxLevel}`);
    if (entry >= count) throw new Error(`entry point ${entry} is not one of the ${count} elements`);
  }

  // Level 0: per element the link list (count, deleted flag, 2M ids), the vector, the label.
  const labelAt = new Map<number, number>();
  const deleted = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    const base = HEADER_BYTES + i * perElement;
    const n = dv.getUint16(base, true);
    if (n > 2 * M) throw new Error(`element ${i} lists ${n} neighbours at level 0 (at most ${2 * M})`);
    deleted[i] = buf[base + 2] & 1;
    for (let k = 0; k < n; k++) {
      const nb = dv.getUint32(base + 4 + 4 * k, true);
      if (nb >= count) throw new Error(`element ${i} links to element ${nb} at level 0 (only ${count} exist)`);
    }
    for (let j = 0; j < dim; j++) {
      if (!Number.isFinite(dv.getFloat32(base + linksLevel0 + 4 * j, true))) throw new Error(`element ${i} has a non-finite vector value`);
    }
    const label = dv.getBigUint64(base + linksLevel0 + dataSize, true);
    if (label <= BigInt(Number.MAX_SAFE_INTEGER) && !deleted[i]) labelAt.set(Number(label), i);
  }
  for (const l of expect.labels) {
    if (!labelAt.has(l)) throw new Error(`label ${l} missing from the index file (or marked deleted)`);
  }

  // Upper levels: per element a byte count, then one list of M ids per level above 0.
  const levels = new Int32Array(count);
  const lists: { i: number; off: number; level: number }[] = [];
  let off = HEADER_BYTES + count * perElement;
  for (let i = 0; i < count; i++) {
    if (off + 4 > size) throw new Error(`the file ends inside the link lists (element ${i})`);
    const bytes = dv.getUint32(off, true);
    off += 4;
    if (bytes % linksUpper !== 0) throw new Error(`element ${i} has ${bytes} bytes of upper links, not a multiple of ${linksUpper}`);
    const level = bytes / linksUpper;
    if (level > maxLevel) throw new Error(`element ${i} has level ${level}, above the index's ${maxLevel}`);
    if (off + bytes > size) throw new Error(`the file ends inside the link lists (element ${i})`);
    levels[i] = level;
    for (let l = 1; l <= level; l++) lists.push({ i, off: off + (l - 1) * linksUpper, level: l });
    off += bytes;
  }
  if (off !== size) throw new Error(`${size - off} bytes after the last link list`);
  if (count > 0 && levels[entry] < maxLevel) throw new Error(`the entry point has level ${levels[entry]}, below the index's ${maxLevel}`);
  for (const { i, off: lo, level } of lists) {
    const n = dv.getUint16(lo, true);
    if (n > M) throw new Error(`element ${i} lists ${n} neighbours at level ${level} (at most ${M})`);
    for (let k = 0; k < n; k++) {
      const nb = dv.getUint32(lo + 4 + 4 * k, true);
      if (nb >= count) throw new Error(`element ${i} links to element ${nb} at level ${level} (only ${count} exist)`);
      if (levels[nb] < level) throw new Error(`element ${i} links to element ${nb} at level ${level}, which it does not reach`);
    }
  }
  return { count, maxElements, maxLevel };
}
