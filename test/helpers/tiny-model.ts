/**
 * Builds a tiny BERT-like feature-extraction model on disk (ONNX graph + config + WordPiece
 * tokenizer) so TransformersEmbedder can be tested offline through the real loading code.
 *
 * Graph: emb = Gather(E, input_ids); h = emb + Tanh(MatMul(emb, W)); last_hidden_state = h * mask.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { mulberry32 as rng } from '../../src/core/raster/algorithms/prng';

// ---- minimal protobuf writer (wire types 0 = varint, 2 = length-delimited, 5 = fixed32) ----

type Field = Buffer;

function varint(n: number | bigint): Buffer {
  let v = BigInt.asUintN(64, BigInt(n));
  const bytes: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) b |= 0x80;
    bytes.push(b);
  } while (v !== 0n);
  return Buffer.from(bytes);
}

function key(field: number, wire: number): Buffer {
  return varint((field << 3) | wire);
}

function fInt(field: number, n: number | bigint): Field {
  return Buffer.concat([key(field, 0), varint(n)]);
}

function fBytes(field: number, data: Buffer): Field {
  return Buffer.concat([key(field, 2), varint(data.length), data]);
}

function fStr(field: number, s: string): Field {
  return fBytes(field, Buffer.from(s, 'utf8'));
}

function msg(...fields: (Field | Field[])[]): Buffer {
  return Buffer.concat(fields.flat());
}

// ---- ONNX messages (field numbers from onnx.proto) ----

const FLOAT = 1;
const INT64 = 7;

function tensorFloat(name: string, dims: number[], data: Float32Array): Buffer {
  const raw = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return msg(dims.map((d) => fInt(1, d)), fInt(2, FLOAT), fStr(8, name), fBytes(9, raw));
}

function tensorInt64(name: string, dims: number[], data: bigint[]): Buffer {
  const raw = Buffer.alloc(8 * data.length);
  data.forEach((v, i) => raw.writeBigInt64LE(v, 8 * i));
  return msg(dims.map((d) => fInt(1, d)), fInt(2, INT64), fStr(8, name), fBytes(9, raw));
}

function valueInfo(name: string, elemType: number, dims: (number | string)[]): Buffer {
  const shape = msg(
    dims.map((d) => fBytes(1, typeof d === 'number' ? fInt(1, d) : fStr(2, d))),
  );
  const tensorType = msg(fInt(1, elemType), fBytes(2, shape));
  return msg(fStr(1, name), fBytes(2, msg(fBytes(1, tensorType))));
}

function attrInt(name: string, v: number): Buffer {
  return msg(fStr(1, name), fInt(3, v), fInt(20, 2 /* INT */));
}

function node(op: string, inputs: string[], outputs: string[], attrs: Buffer[] = []): Buffer {
  return msg(
    inputs.map((i) => fStr(1, i)),
    outputs.map((o) => fStr(2, o)),
    fStr(3, `${op}_${outputs[0]}`),
    fStr(4, op),
    attrs.map((a) => fBytes(5, a)),
  );
}

export const TINY_SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
export const TINY_WORDS = [
  'ndvi', 'vegetation', 'index', 'water', 'flood', 'slope', 'dem', 'terrain', 'burn', 'fire', 'urban', 'cloud',
  'mask', 'area', 'map', 'the', 'of', 'from', 'a', 'compute', 'river', 'lake', 'steep', 'hill', 'crop', 'field',
  'green', '##ness', '##s', '##ing', '##ed', '植', '被', '指', '数', '坡', '度', '水', '体',
];

export interface TinyModel {
  /** Folder holding config.json, tokenizer files and onnx/model.onnx. */
  dir: string;
  dimension: number;
  vocab: string[];
}

/** Builds the model under `parent/name` and returns its folder. */
export function buildTinyModel(parent: string, name = 'tiny-bert', dimension = 16, seed = 7): TinyModel {
  const dir = path.join(parent, name);
  fs.mkdirSync(path.join(dir, 'onnx'), { recursive: true });
  const vocab = [...TINY_SPECIAL, ...TINY_WORDS];
  const V = vocab.length;
  const D = dimension;
  const rand = rng(seed);
  const E = new Float32Array(V * D);
  for (let i = 0; i < V; i++) {
    // special tokens get small vectors so [CLS]/[SEP] do not dominate mean pooling
    const scale = i < TINY_SPECIAL.length ? 0.05 : 1;
    for (let j = 0; j < D; j++) E[i * D + j] = (rand() * 2 - 1) * scale;
  }
  const W = new Float32Array(D * D);
  for (let i = 0; i < W.length; i++) W[i] = (rand() * 2 - 1) * 0.3;

  const nodes = [
    node('Gather', ['E', 'input_ids'], ['emb'], [attrInt('axis', 0)]),
    node('MatMul', ['emb', 'W'], ['proj']),
    node('Tanh', ['proj'], ['act']),
    node('Add', ['emb', 'act'], ['hidden']),
    node('Cast', ['attention_mask'], ['mask_f'], [attrInt('to', FLOAT)]),
    node('Unsqueeze', ['mask_f', 'axes'], ['mask3']),
    node('Mul', ['hidden', 'mask3'], ['last_hidden_state']),
  ];
  const graphProto = msg(
    nodes.map((n) => fBytes(1, n)),
    fStr(2, 'tiny_bert'),
    fBytes(5, tensorFloat('E', [V, D], E)),
    fBytes(5, tensorFloat('W', [D, D], W)),
    fBytes(5, tensorInt64('axes', [1], [-1n])),
    fBytes(11, valueInfo('input_ids', INT64, ['batch_size', 'sequence_length'])),
    fBytes(11, valueInfo('attention_mask', INT64, ['batch_size', 'sequence_length'])),
    fBytes(12, valueInfo('last_hidden_state', FLOAT, ['batch_size', 'sequence_length', D])),
  );
  const model = msg(
    fInt(1, 8), // ir_version
    fStr(2, 'geoweave-test'),
    fBytes(7, graphProto),
    fBytes(8, msg(fStr(1, ''), fInt(2, 13))), // opset_import ai.onnx v13
  );
  fs.writeFileSync(path.join(dir, 'onnx', 'model.onnx'), model);

  const writeJson = (file: string, v: unknown): void =>
    fs.writeFileSync(path.join(dir, file), JSON.stringify(v, null, 2));
  writeJson('config.json', {
    model_type: 'bert',
    architectures: ['BertModel'],
    hidden_size: D,
    vocab_size: V,
    num_hidden_layers: 1,
    num_attention_heads: 1,
    intermediate_size: D,
    max_position_embeddings: 64,
    type_vocab_size: 2,
    pad_token_id: 0,
  });
  const ids = (t: string): number => vocab.indexOf(t);
  writeJson('tokenizer.json', {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: TINY_SPECIAL.map((t, i) => ({
      id: i,
      content: t,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [ids('[CLS]')], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [ids('[SEP]')], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((t, i) => [t, i])),
    },
  });
  writeJson('tokenizer_config.json', {
    tokenizer_class: 'BertTokenizer',
    do_lower_case: true,
    model_max_length: 64,
    cls_token: '[CLS]',
    sep_token: '[SEP]',
    pad_token: '[PAD]',
    unk_token: '[UNK]',
    mask_token: '[MASK]',
    clean_up_tokenization_spaces: true,
  });
  writeJson('special_tokens_map.json', {
    cls_token: '[CLS]',
    sep_token: '[SEP]',
    pad_token: '[PAD]',
    unk_token: '[UNK]',
    mask_token: '[MASK]',
  });
  return { dir, dimension: D, vocab };
}
