/**
 * The container of an ERDAS Imagine (.img, HFA) file: the `EHFA_HEADER_TAG` header, the Ehfa_File
 * record it points to, the data dictionary, and the tree of nodes (Ehfa_Entry: next, prev, parent,
 * child, data, dataSize, name[64], type[32]) as GDAL's hfaopen.cpp walks it. Every offset is checked
 * against the file's size and the walk is bounded, so a damaged file gives an error, not a loop.
 */
import * as fs from 'node:fs';
import { HfaDictionary, HfaDictionaryError, type HfaRecord } from './hfa-dictionary';

export const HFA_MAGIC = 'EHFA_HEADER_TAG';

/** Whether a file's first bytes are an HFA header. */
export function isHfa(head: Buffer): boolean {
  return head.length >= 15 && head.toString('latin1', 0, 15) === HFA_MAGIC;
}

/** Bytes of an Ehfa_Entry GDAL reads (six pointers, name, type). */
const ENTRY_BYTES = 4 * 6 + 64 + 32;
/** Nodes walked at most (a layer has a dozen; files with thousands of layers are not rasters we read). */
const MAX_NODES = 100000;
/** The dictionary is a few KB; GDAL reads it until its closing ",.". */
const MAX_DICTIONARY_BYTES = 1 << 20;
/** Largest node read whole (the block table of a 160 000 × 105 000 NLCD layer is 58 MB). */
const MAX_NODE_BYTES = 1 << 29;

export interface HfaNode {
  name: string; type: string;
  /** File offset of its data and its size. */
  dataAt: number; dataSize: number;
  at: number;
  parent?: HfaNode;
  children: HfaNode[];
}

/** A file read at offsets, every read checked against its size (a damaged offset is an error, not a huge allocation). */
export class BoundedFile {
  size = 0;
  protected fh?: fs.promises.FileHandle;

  constructor(readonly file: string, protected fail: (message: string) => Error) {}

  /** An error naming the file. */
  bad(why: string): Error { return this.fail(`${this.file}: ${why}`); }

  async openFile(): Promise<void> {
    this.fh = await fs.promises.open(this.file, 'r');
    this.size = (await this.fh.stat()).size;
  }

  /** `n` bytes at `at`, all inside the file, or an error naming `what`. */
  async read(at: number, n: number, what: string): Promise<Buffer> {
    if (!this.fh) throw this.bad('the file is closed');
    if (!(Number.isSafeInteger(at) && Number.isSafeInteger(n) && at >= 0 && n >= 0) || at + n > this.size) {
      throw this.bad(`${what} (${n} bytes at offset ${at}) lies past the end of the file (${this.size} bytes); the file is cut short or damaged`);
    }
    const b = Buffer.alloc(n);
    let got = 0;
    while (got < n) {
      const { bytesRead } = await this.fh.read(b, got, n - got, at + got);
      if (bytesRead <= 0) throw this.bad(`the file ended while reading ${what}; it changed since it was opened`);
      got += bytesRead;
    }
    return b;
  }

  async close(): Promise<void> {
    await this.fh?.close().catch(() => undefined);
    this.fh = undefined;
  }
}

export class HfaFile extends BoundedFile {
  root!: HfaNode;
  dictionary!: HfaDictionary;
  private nodes = 0;

  async open(): Promise<void> {
    await this.openFile();
    try {
      const head = await this.read(0, 20, 'the header');
      if (!isHfa(head)) throw this.bad('not an ERDAS Imagine file (no EHFA_HEADER_TAG at its start)');
      const fileAt = head.readUInt32LE(16);
      const hf = await this.read(fileAt, 18, 'the Ehfa_File record');
      const version = hf.readInt32LE(0), rootAt = hf.readUInt32LE(8), dictAt = hf.readUInt32LE(14);
      if (version !== 1) throw this.bad(`HFA version ${version}; GeoWeave reads version 1 (what ERDAS and GDAL write)`);
      this.dictionary = await this.readDictionary(dictAt);
      this.root = await this.walk(rootAt, undefined, 0, new Set());
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  private async readDictionary(at: number): Promise<HfaDictionary> {
    const n = Math.min(MAX_DICTIONARY_BYTES, this.size - at);
    if (!(at > 0 && n > 0)) throw this.bad(`its data dictionary pointer ${at} is outside the file (${this.size} bytes)`);
    const text = (await this.read(at, n, 'the data dictionary')).toString('latin1');
    const end = text.indexOf(',.');
    if (end < 0) throw this.bad('its data dictionary has no end (",."); the file is cut short or damaged');
    try {
      return new HfaDictionary(text.slice(0, end + 2));
    } catch (e) {
      if (e instanceof HfaDictionaryError) throw this.bad(`its data dictionary is damaged: ${e.message}`);
      throw e;
    }
  }

  /** The node at `at` with its descendants, and where its next sibling is. */
  private async walk(at: number, parent: HfaNode | undefined, depth: number, seen: Set<number>): Promise<HfaNode> {
    return (await this.walkFrom(at, parent, depth, seen)).node;
  }

  private async walkFrom(at: number, parent: HfaNode | undefined, depth: number, seen: Set<number>): Promise<{ node: HfaNode; nextAt: number }> {
    if (seen.has(at)) throw this.bad(`its node tree loops back to the node at ${at}; the file is damaged`);
    if (++this.nodes > MAX_NODES) throw this.bad(`more than ${MAX_NODES} nodes; the file is damaged or not a raster GeoWeave reads`);
    seen.add(at);
    const b = await this.read(at, ENTRY_BYTES, `the node at offset ${at}`);
    const text = (o: number, n: number) => b.toString('latin1', o, o + n).split('\0')[0];
    const node: HfaNode = { name: text(24, 64), type: text(88, 32), dataAt: b.readUInt32LE(16), dataSize: b.readInt32LE(20), at, parent, children: [] };
    if (depth > 16) throw this.bad(`its node tree is nested more than 16 deep at ${path(node)}; the file is damaged`);
    for (let c = b.readUInt32LE(12); c !== 0;) {
      const r = await this.walkFrom(c, node, depth + 1, seen);
      node.children.push(r.node);
      c = r.nextAt;
    }
    return { node, nextAt: b.readUInt32LE(0) };
  }

  /** The raw bytes of a node's data. */
  async data(node: HfaNode): Promise<Buffer> {
    if (node.dataSize < 0 || node.dataSize > MAX_NODE_BYTES) throw this.bad(`node ${path(node)} claims ${node.dataSize} bytes of data; the file is damaged`);
    return this.read(node.dataAt, node.dataSize, `the data of node ${path(node)}`);
  }

  /** A node's data decoded by its type (or `as`), as a record of its fields. */
  async record(node: HfaNode, as = node.type): Promise<HfaRecord> {
    const b = await this.data(node);
    try {
      return this.dictionary.decode(as, b).value;
    } catch (e) {
      if (e instanceof HfaDictionaryError) throw this.bad(`node ${path(node)}: ${e.message}`);
      throw e;
    }
  }
}

/** The named child (a dotted path of names: `Descriptor_Table.Red`), as GDAL's GetNamedChild. */
export function child(node: HfaNode, names: string): HfaNode | undefined {
  let n: HfaNode | undefined = node;
  for (const name of names.split('.')) n = n?.children.find((c) => c.name === name);
  return n;
}

/** The first child of a type. */
export function childOfType(node: HfaNode, type: string): HfaNode | undefined {
  return node.children.find((c) => c.type === type);
}

/** "Layer_1/RasterDMS": a node's place for messages. */
export function path(node: HfaNode): string {
  const parts: string[] = [];
  for (let n: HfaNode | undefined = node; n && n.parent; n = n.parent) parts.unshift(n.name || `(${n.type})`);
  return parts.join('/') || 'root';
}
