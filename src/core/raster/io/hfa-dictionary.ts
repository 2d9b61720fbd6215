/**
 * The data dictionary of an ERDAS Imagine (HFA) file: the text that describes every node type the
 * file holds (`{1:lwidth,1:lheight,1:e3:thematic,athematic,…,layerType,…}Eimg_Layer,…,.`), and the
 * decoding of a node's bytes by its type, as GDAL's hfadictionary.cpp / hfafield.cpp read them. HFA
 * is self-describing: the reader trusts the file's own layouts rather than fixed structs (GDAL
 * writes Edms_VirtualBlockInfo with a 2-byte fileCode where older ERDAS files have 4), so a damaged
 * dictionary is reported as such, never guessed around.
 */

/** One field: `count:[p|*]kind[object type|enum values]name`. */
export interface HfaField {
  name: string;
  /** Items when stored inline (a pointer field's count is in the data). */
  count: number;
  /** `p` or `*`: the data holds a count and an offset (8 bytes), then the items. */
  pointer: boolean;
  /** GDAL's item type letter: 1 2 4 c C e s S t l L f d m M b o. */
  kind: string;
  objectType?: string;
  enumNames?: string[];
}

export interface HfaType { name: string; fields: HfaField[] }

/** A decoded BASEDATA value (`b`): a rows × columns matrix of one EPT sample type. */
export interface HfaBaseData { rows: number; columns: number; type: number; values: number[] }

export type HfaValue = number | string | null | HfaBaseData | HfaRecord | (number | HfaRecord)[];
export interface HfaRecord { [field: string]: HfaValue }

/** Bytes one item of each fixed-size kind takes (GDAL stores 1/2/4-bit kinds in a byte each). */
const KIND_BYTES: Record<string, number> = { 1: 1, 2: 1, 4: 1, c: 1, C: 1, e: 2, s: 2, S: 2, t: 4, l: 4, L: 4, f: 4, d: 8, m: 8, M: 16 };
/** Bytes of a sample of each EPT type code (u1…c128) in BASEDATA; the bit types round up to a byte per row. */
export const EPT_BITS = [1, 2, 4, 8, 8, 16, 16, 32, 32, 32, 64, 64, 128];

/**
 * Types some files use without defining them (ERDAS leaves out what it takes as known), as GDAL's
 * HFADictionary adds them (aszDefaultDefn): used only where the file's own dictionary has none.
 */
const DEFAULT_TYPES = '{1:lnumrows,}Edsc_Table,{1:lnumRows,1:LcolumnDataPtr,1:e4:integer,real,complex,string,dataType,1:lmaxNumChars,}Edsc_Column,'
  + '{1:dwidth,1:dheight,}Eprj_Size,{1:dx,1:dy,}Eprj_Coordinate,'
  + '{0:pcproName,1:*oEprj_Coordinate,upperLeftCenter,1:*oEprj_Coordinate,lowerRightCenter,1:*oEprj_Size,pixelSize,0:pcunits,}Eprj_MapInfo,'
  + '{1:*bvalueBD,}Eimg_NonInitializedValue,{0:pcstring,}Emif_String,'
  + '{0:pcsphereName,1:da,1:db,1:deSquared,1:dradius,}Eprj_Spheroid,'
  + '{0:pcdatumname,1:e3:EPRJ_DATUM_PARAMETRIC,EPRJ_DATUM_GRID,EPRJ_DATUM_REGRESSION,type,0:pdparams,0:pcgridname,}Eprj_Datum,'
  + '{1:e2:EPRJ_INTERNAL,EPRJ_EXTERNAL,proType,1:lproNumber,0:pcproExeName,0:pcproName,1:lproZone,0:pdproParams,1:*oEprj_Spheroid,proSpheroid,}Eprj_ProParameters,'
  + '{1:oEmif_String,fileName,2:LlayerStackValidFlagsOffset,2:LlayerStackDataOffset,1:LlayerStackCount,1:LlayerStackIndex,}ImgExternalRaster,.';

/** Limits that keep a damaged file from allocating or looping without end. */
const MAX_TYPES = 10000, MAX_FIELDS = 1000, MAX_ENUMS = 10000, MAX_DEPTH = 8, MAX_ITEMS = 1 << 24;

export class HfaDictionaryError extends Error {}

/** The dictionary: types by name. */
export class HfaDictionary {
  readonly types = new Map<string, HfaType>();

  /** Parses the dictionary text (up to its closing `.`); throws HfaDictionaryError saying where it is malformed. */
  constructor(text: string) {
    let at = 0;
    const fail = (why: string): never => { throw new HfaDictionaryError(`${why} at character ${at} of the data dictionary`); };
    const until = (stop: string) => {
      const end = text.indexOf(stop, at);
      if (end < 0) fail(`a "${stop}" is missing`);
      const s = text.slice(at, end);
      at = end + 1;
      return s;
    };
    const parseType = (depth: number): HfaType => {
      if (depth > MAX_DEPTH) fail('types are nested too deeply');
      if (text[at] !== '{') fail(`"{" expected, found "${text[at] ?? 'the end'}"`);
      at++;
      const fields: HfaField[] = [];
      while (at < text.length && text[at] !== '}') {
        if (fields.length >= MAX_FIELDS) fail('a type has too many fields');
        const countText = until(':');
        const count = Number(countText);
        if (!/^\d+$/.test(countText) || count > MAX_ITEMS) fail(`"${countText.slice(0, 20)}" is not a field count`);
        let pointer = false;
        if (text[at] === 'p' || text[at] === '*') { pointer = true; at++; }
        let kind = text[at++] ?? '';
        if (!'124cCesStlLfdmMbox'.includes(kind) || !kind) fail(`"${kind}" is not a field type`);
        const field: HfaField = { name: '', count, pointer, kind };
        if (kind === 'o') field.objectType = until(',');
        else if (kind === 'x') {
          // An object whose type is defined inline: registered under its name unless defined already.
          const inline = parseType(depth + 1);
          if (!this.types.has(inline.name)) this.types.set(inline.name, inline);
          field.kind = kind = 'o';
          field.objectType = inline.name;
        }
        if (kind === 'e') {
          const n = Number(until(':'));
          if (!(Number.isInteger(n) && n >= 0 && n <= MAX_ENUMS)) fail('an enumeration has no valid count');
          field.enumNames = [];
          for (let i = 0; i < n; i++) field.enumNames.push(until(','));
        }
        field.name = until(',');
        fields.push(field);
      }
      if (text[at] !== '}') fail('a type is not closed with "}"');
      at++;
      return { name: until(','), fields };
    };
    while (at < text.length && text[at] !== '.') {
      if (this.types.size >= MAX_TYPES) fail('too many types');
      const t = parseType(0);
      this.types.set(t.name, t);
    }
    if (text[at] !== '.') fail('the dictionary does not end with "."');
    if (text !== DEFAULT_TYPES) for (const [name, t] of new HfaDictionary(DEFAULT_TYPES).types) if (!this.types.has(name)) this.types.set(name, t);
  }

  type(name: string): HfaType | undefined { return this.types.get(name); }

  /**
   * Decodes an instance of `typeName` from `b` at `at` (fields in order, each as GDAL's
   * HFAField::ExtractInstValue reads it). `stopAt` ends the walk at that field and returns where
   * it starts instead (for tables read straight into arrays). Throws HfaDictionaryError on data that
   * does not fit the type.
   */
  decode(typeName: string, b: Buffer, at = 0, end = b.length, stopAt?: string, depth = 0): { value: HfaRecord; next: number; stoppedAt?: number } {
    const t = this.types.get(typeName);
    if (!t) throw new HfaDictionaryError(`the type ${typeName} is not in the data dictionary`);
    if (depth > MAX_DEPTH) throw new HfaDictionaryError(`${typeName}: objects nested too deeply`);
    const need = (n: number, f: HfaField) => {
      if (!(n >= 0) || at + n > end) throw new HfaDictionaryError(`${typeName}.${f.name} needs ${n} bytes at ${at}, past the end of its node (${end})`);
    };
    const value: HfaRecord = {};
    for (const f of t.fields) {
      if (stopAt === f.name) return { value, next: at, stoppedAt: at };
      let count = f.count;
      if (f.pointer) {
        need(8, f);
        count = b.readUInt32LE(at);
        at += 8;
      }
      if (f.kind === 'b') {
        if (count === 0) { value[f.name] = null; continue; }
        need(12, f);
        const rows = b.readInt32LE(at), columns = b.readInt32LE(at + 4), type = b.readInt16LE(at + 8);
        at += 12;
        const bits = EPT_BITS[type];
        if (!(rows >= 0 && columns >= 0 && rows * columns <= MAX_ITEMS && bits)) throw new HfaDictionaryError(`${typeName}.${f.name}: a ${rows}×${columns} table of type ${type} is not valid`);
        const bytes = bits < 8 ? rows * Math.ceil((columns * bits) / 8) : (rows * columns * bits) / 8;
        need(bytes, f);
        value[f.name] = { rows, columns, type, values: baseDataValues(b, at, type, rows * columns) };
        at += bytes;
        continue;
      }
      if (f.kind === 'o') {
        if (!f.objectType || !this.types.has(f.objectType)) throw new HfaDictionaryError(`${typeName}.${f.name}: its type ${f.objectType} is not in the data dictionary`);
        if (count > end - at) throw new HfaDictionaryError(`${typeName}.${f.name}: ${count} objects cannot fit in ${end - at} bytes`);
        const items: HfaRecord[] = [];
        for (let i = 0; i < count; i++) {
          const r = this.decode(f.objectType, b, at, end, undefined, depth + 1);
          items.push(r.value);
          at = r.next;
        }
        value[f.name] = f.pointer && f.count === 1 || (!f.pointer && count === 1) ? (items[0] ?? null) : items;
        continue;
      }
      const size = KIND_BYTES[f.kind];
      need(size * count, f);
      if (f.kind === 'c' || f.kind === 'C') {
        if (f.pointer || count > 1) {
          const s = b.toString('latin1', at, at + count);
          const nul = s.indexOf('\0');
          value[f.name] = nul < 0 ? s : s.slice(0, nul);
        } else value[f.name] = f.kind === 'c' ? b.readInt8(at) : b[at];
        at += count;
        continue;
      }
      const read = (p: number): number => {
        switch (f.kind) {
          case 'e': case 's': return b.readUInt16LE(p);
          case 'S': return b.readInt16LE(p);
          case 'l': return b.readInt32LE(p);
          case 't': case 'L': return b.readUInt32LE(p);
          case 'f': case 'm': return b.readFloatLE(p);
          case 'd': case 'M': return b.readDoubleLE(p);
          default: return b[p];
        }
      };
      const nums: number[] = [];
      for (let i = 0; i < count; i++) nums.push(read(at + i * size));
      at += size * count;
      if (f.kind === 'e' && count === 1 && !f.pointer) value[f.name] = f.enumNames?.[nums[0]] ?? nums[0];
      else value[f.name] = count === 1 && !f.pointer ? nums[0] : nums;
    }
    return { value, next: at };
  }

  /**
   * Byte offset of each field inside an instance of a fixed-size type (no pointers, no BASEDATA),
   * and the instance's size: for block tables read straight into typed arrays. Undefined when the
   * type is not of fixed size.
   */
  fixedLayout(typeName: string, depth = 0): { size: number; fields: Map<string, { at: number; kind: string }> } | undefined {
    const t = this.types.get(typeName);
    if (!t || depth > MAX_DEPTH) return undefined;
    const fields = new Map<string, { at: number; kind: string }>();
    let size = 0;
    for (const f of t.fields) {
      if (f.pointer || f.kind === 'b') return undefined;
      fields.set(f.name, { at: size, kind: f.kind });
      if (f.kind === 'o') {
        const inner = f.objectType ? this.fixedLayout(f.objectType, depth + 1) : undefined;
        if (!inner) return undefined;
        size += inner.size * f.count;
      } else size += KIND_BYTES[f.kind] * f.count;
    }
    return { size, fields };
  }
}

/** The numbers of a BASEDATA table (little-endian; complex types give their real parts). */
function baseDataValues(b: Buffer, at: number, type: number, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    switch (type) {
      case 0: out.push((b[at + (i >> 3)] >> (i & 7)) & 1); break;
      case 1: out.push((b[at + (i >> 2)] >> ((i & 3) * 2)) & 3); break;
      case 2: out.push((b[at + (i >> 1)] >> ((i & 1) * 4)) & 15); break;
      case 3: out.push(b[at + i]); break;
      case 4: out.push(b.readInt8(at + i)); break;
      case 5: out.push(b.readUInt16LE(at + 2 * i)); break;
      case 6: out.push(b.readInt16LE(at + 2 * i)); break;
      case 7: out.push(b.readUInt32LE(at + 4 * i)); break;
      case 8: out.push(b.readInt32LE(at + 4 * i)); break;
      case 9: out.push(b.readFloatLE(at + 4 * i)); break;
      case 10: out.push(b.readDoubleLE(at + 8 * i)); break;
      case 11: out.push(b.readFloatLE(at + 8 * i)); break;
      default: out.push(b.readDoubleLE(at + 16 * i)); break;
    }
  }
  return out;
}
