/*
 * GeoWeave's DEFLATE codec: libdeflate's whole-buffer zlib-format compress and decompress, exposed to
 * JavaScript through Node-API (ABI-stable, context-aware: worker threads load it too).
 *
 *   inflate(input: Uint8Array, output: Uint8Array, exact?: boolean): number
 *     Decompresses the zlib stream `input` into `output` (sized by the caller: a TIFF tile's decoded size is
 *     known) and returns the bytes written. Throws ERR_DEFLATE_BAD_DATA on corrupt input,
 *     ERR_DEFLATE_OUTPUT_SIZE when the data does not fit (or, with `exact`, does not fill `output`).
 *   deflate(input: Uint8Array, level: number, output: Uint8Array): number
 *     Compresses `input` as a zlib stream at libdeflate level 0-12 into `output`; returns the bytes written.
 *     Throws ERR_DEFLATE_OUTPUT_SIZE when `output` is smaller than needed (size it with deflateBound).
 *   deflateBound(level: number, n: number): number
 *   unpredict(data: Uint8Array, predictor: 2 | 3, rowBytes: number, stride: number, bytes: number): void
 *     Undoes a TIFF predictor in place on the whole rows of a decoded block of little-endian samples:
 *     2 (horizontal differencing of 1, 2 or 4-byte integers, wrapping) or 3 (floating point: byte
 *     differencing, then the byte planes, most significant first, put back into 4 or 8-byte words).
 *     `stride` is the samples per pixel of a pixel-interleaved block (else 1). About 10x faster than the
 *     same loops in JavaScript, which remain the fallback (raw-tiles.ts).
 *   predict(data: Uint8Array, out: Uint8Array, predictor: 2 | 3, rowBytes: number, bytes: number): void
 *     Applies a TIFF predictor to whole rows of little-endian samples (one sample per pixel), the inverse of
 *     unpredict: 2 in place on `data` (horizontal differencing of 1, 2 or 4-byte integers; `out` is ignored),
 *     3 from `data` into `out` (byte planes of each row, most significant first, then byte differencing).
 *     With `stride` (optional, predictor 2 only): each sample minus the one `stride` samples before it (the same
 *     band's previous pixel in a pixel-interleaved row of `stride` bands).
 *   huffman(input: Uint8Array, output: Uint8Array, rle?: boolean): number
 *     Compresses `input` as a zlib stream of Huffman-only DEFLATE blocks (huffman.c) into `output`; returns the
 *     bytes written. `rle`: runs of one byte become matches at distance 1 (zlib's Z_RLE parsing). Throws
 *     ERR_DEFLATE_OUTPUT_SIZE when `output` is smaller than huffmanBound(input.length).
 *   huffmanBound(n: number): number
 *   huffmanRle: true (huffman takes `rle`; absent from the first addons with huffman)
 *   version: string
 *
 * Compressors (one per level) and the decompressor are allocated once per Node environment (main thread
 * or worker) and freed with it.
 */
#include <node_api.h>
#include <libdeflate.h>
#include "huffman.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEVEL 12

typedef struct {
  struct libdeflate_compressor *compressors[MAX_LEVEL + 1];
  struct libdeflate_decompressor *decompressor;
  unsigned char *row;   /* predictor 3 scratch: one row */
  size_t row_cap;
} codec_state;

static void free_state(napi_env env, void *data, void *hint) {
  (void)env; (void)hint;
  codec_state *s = (codec_state *)data;
  if (!s) return;
  for (int i = 0; i <= MAX_LEVEL; i++) if (s->compressors[i]) libdeflate_free_compressor(s->compressors[i]);
  if (s->decompressor) libdeflate_free_decompressor(s->decompressor);
  free(s->row);
  free(s);
}

static napi_value throw_code(napi_env env, const char *code, const char *msg) {
  napi_throw_error(env, code, msg);
  return NULL;
}

#define CHECK(call) do { if ((call) != napi_ok) return throw_code(env, "ERR_DEFLATE_INTERNAL", "Node-API call failed: " #call); } while (0)

/* Bytes of a Uint8Array (or Buffer) argument; returns 0 and throws a TypeError on anything else. */
static int get_bytes(napi_env env, napi_value v, const char *name, unsigned char **data, size_t *len) {
  bool is_ta = false;
  if (napi_is_typedarray(env, v, &is_ta) != napi_ok || !is_ta) {
    char msg[96];
    snprintf(msg, sizeof msg, "%s must be a Uint8Array or Buffer", name);
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
    return 0;
  }
  napi_typedarray_type type;
  void *p = NULL;
  size_t n = 0;
  if (napi_get_typedarray_info(env, v, &type, &n, &p, NULL, NULL) != napi_ok || type != napi_uint8_array) {
    char msg[96];
    snprintf(msg, sizeof msg, "%s must be a Uint8Array or Buffer", name);
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
    return 0;
  }
  *data = (unsigned char *)p;
  *len = n;
  return 1;
}

static int get_level(napi_env env, napi_value v, int *level) {
  double d = -1;
  napi_valuetype t;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_number || napi_get_value_double(env, v, &d) != napi_ok
      || !(d >= 0 && d <= MAX_LEVEL) || d != (double)(int)d) {
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "level must be an integer from 0 to 12");
    return 0;
  }
  *level = (int)d;
  return 1;
}

static codec_state *state(napi_env env) {
  codec_state *s = NULL;
  if (napi_get_instance_data(env, (void **)&s) != napi_ok) return NULL;
  return s;
}

static struct libdeflate_compressor *compressor(napi_env env, int level) {
  codec_state *s = state(env);
  if (!s) return NULL;
  if (!s->compressors[level]) s->compressors[level] = libdeflate_alloc_compressor(level);
  return s->compressors[level];
}

/* The (input, output[, flag]) arguments inflate and huffman take; returns 0 with an exception pending when one is bad. */
static int io_args(napi_env env, napi_callback_info info, const char *usage, unsigned char **in, size_t *in_n,
                   unsigned char **out, size_t *out_n, bool *flag) {
  size_t argc = 3;
  napi_value argv[3];
  *flag = false;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) {
    throw_code(env, "ERR_DEFLATE_INTERNAL", "Node-API call failed: napi_get_cb_info");
    return 0;
  }
  if (argc < 2) { throw_code(env, "ERR_MISSING_ARGS", usage); return 0; }
  if (!get_bytes(env, argv[0], "input", in, in_n) || !get_bytes(env, argv[1], "output", out, out_n)) return 0;
  if (argc > 2) {
    napi_valuetype t;
    if (napi_typeof(env, argv[2], &t) != napi_ok || (t == napi_boolean && napi_get_value_bool(env, argv[2], flag) != napi_ok)) {
      throw_code(env, "ERR_DEFLATE_INTERNAL", "Node-API call failed: reading the third argument");
      return 0;
    }
  }
  return 1;
}

static napi_value js_inflate(napi_env env, napi_callback_info info) {
  unsigned char *in, *out;
  size_t in_n, out_n;
  bool exact;
  if (!io_args(env, info, "inflate(input, output[, exact]) needs input and output", &in, &in_n, &out, &out_n, &exact)) return NULL;
  codec_state *s = state(env);
  if (!s) return throw_code(env, "ERR_DEFLATE_INTERNAL", "codec state missing");
  if (!s->decompressor) s->decompressor = libdeflate_alloc_decompressor();
  if (!s->decompressor) return throw_code(env, "ERR_DEFLATE_NO_MEMORY", "cannot allocate a DEFLATE decompressor");
  size_t got = 0;
  /* libdeflate reads the input and writes the output in place; an empty output has no pointer. */
  static unsigned char empty[1];
  enum libdeflate_result r = libdeflate_zlib_decompress(s->decompressor, in_n ? in : empty, in_n,
                                                        out_n ? out : empty, out_n, exact ? NULL : &got);
  if (r == LIBDEFLATE_SUCCESS) {
    napi_value ret;
    CHECK(napi_create_double(env, (double)(exact ? out_n : got), &ret));
    return ret;
  }
  char msg[160];
  if (r == LIBDEFLATE_BAD_DATA) return throw_code(env, "ERR_DEFLATE_BAD_DATA", "corrupt DEFLATE (zlib) data");
  if (r == LIBDEFLATE_SHORT_OUTPUT) {
    snprintf(msg, sizeof msg, "DEFLATE data decompressed to fewer than the %zu bytes expected", out_n);
    return throw_code(env, "ERR_DEFLATE_OUTPUT_SIZE", msg);
  }
  if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
    snprintf(msg, sizeof msg, "DEFLATE data decompresses to more than the %zu bytes expected", out_n);
    return throw_code(env, "ERR_DEFLATE_OUTPUT_SIZE", msg);
  }
  return throw_code(env, "ERR_DEFLATE_BAD_DATA", "DEFLATE decompression failed");
}

static napi_value js_deflate(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 3) return throw_code(env, "ERR_MISSING_ARGS", "deflate(input, level, output) needs three arguments");
  unsigned char *in, *out;
  size_t in_n, out_n;
  int level;
  if (!get_bytes(env, argv[0], "input", &in, &in_n) || !get_level(env, argv[1], &level)
      || !get_bytes(env, argv[2], "output", &out, &out_n)) return NULL;
  struct libdeflate_compressor *c = compressor(env, level);
  if (!c) return throw_code(env, "ERR_DEFLATE_NO_MEMORY", "cannot allocate a DEFLATE compressor");
  static unsigned char empty[1];
  size_t n = out_n ? libdeflate_zlib_compress(c, in_n ? in : empty, in_n, out, out_n) : 0;
  if (n == 0) {
    char msg[160];
    snprintf(msg, sizeof msg, "compressed data does not fit in %zu bytes (need up to %zu)", out_n,
             libdeflate_zlib_compress_bound(c, in_n));
    return throw_code(env, "ERR_DEFLATE_OUTPUT_SIZE", msg);
  }
  napi_value ret;
  CHECK(napi_create_double(env, (double)n, &ret));
  return ret;
}

static napi_value js_bound(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int level;
  double n = -1;
  if (argc < 2 || !get_level(env, argv[0], &level)) return argc < 2 ? throw_code(env, "ERR_MISSING_ARGS", "deflateBound(level, n)") : NULL;
  if (napi_get_value_double(env, argv[1], &n) != napi_ok || !(n >= 0 && n <= 9007199254740991.0)) {
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "n must be a byte count");
    return NULL;
  }
  struct libdeflate_compressor *c = compressor(env, level);
  if (!c) return throw_code(env, "ERR_DEFLATE_NO_MEMORY", "cannot allocate a DEFLATE compressor");
  napi_value ret;
  CHECK(napi_create_double(env, (double)libdeflate_zlib_compress_bound(c, (size_t)n), &ret));
  return ret;
}


static int get_size(napi_env env, napi_value v, const char *name, double max, size_t *out) {
  double d = -1;
  napi_valuetype t;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_number || napi_get_value_double(env, v, &d) != napi_ok
      || !(d >= 1 && d <= max) || d != (double)(size_t)d) {
    char msg[96];
    snprintf(msg, sizeof msg, "%s must be an integer from 1 to %.0f", name, max);
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", msg);
    return 0;
  }
  *out = (size_t)d;
  return 1;
}

/* Predictor 2 on little-endian samples of `bytes` bytes: each sample adds the one `stride` samples before it. */
static void undo_horizontal(unsigned char *b, size_t rows, size_t row_bytes, size_t stride, size_t bytes) {
  size_t count = row_bytes / bytes;
  for (size_t r = 0; r < rows; r++) {
    unsigned char *p = b + r * row_bytes;
    if (bytes == 1) {
      for (size_t i = stride; i < count; i++) p[i] = (unsigned char)(p[i] + p[i - stride]);
    } else if (bytes == 2) {
      for (size_t i = stride; i < count; i++) {
        unsigned v = (unsigned)(p[2 * i] | (p[2 * i + 1] << 8)) + (unsigned)(p[2 * (i - stride)] | (p[2 * (i - stride) + 1] << 8));
        p[2 * i] = (unsigned char)v; p[2 * i + 1] = (unsigned char)(v >> 8);
      }
    } else {
      for (size_t i = stride; i < count; i++) {
        const unsigned char *q = p + 4 * (i - stride);
        unsigned char *o = p + 4 * i;
        uint32_t v = ((uint32_t)o[0] | ((uint32_t)o[1] << 8) | ((uint32_t)o[2] << 16) | ((uint32_t)o[3] << 24))
                   + ((uint32_t)q[0] | ((uint32_t)q[1] << 8) | ((uint32_t)q[2] << 16) | ((uint32_t)q[3] << 24));
        o[0] = (unsigned char)v; o[1] = (unsigned char)(v >> 8); o[2] = (unsigned char)(v >> 16); o[3] = (unsigned char)(v >> 24);
      }
    }
  }
}

/* Predictor 3: undo the byte differencing (distance `stride`), then rebuild little-endian words from the planes. */
static void undo_float(unsigned char *b, size_t rows, size_t row_bytes, size_t stride, size_t bytes, unsigned char *s) {
  size_t wc = row_bytes / bytes;
  for (size_t r = 0; r < rows; r++) {
    unsigned char *p = b + r * row_bytes;
    if (stride == 1) {
      unsigned char acc = 0;
      for (size_t i = 0; i < row_bytes; i++) { acc = (unsigned char)(acc + p[i]); s[i] = acc; }
    } else {
      for (size_t i = 0; i < stride && i < row_bytes; i++) s[i] = p[i];
      for (size_t i = stride; i < row_bytes; i++) s[i] = (unsigned char)(p[i] + s[i - stride]);
    }
    if (bytes == 4) {
      const unsigned char *s0 = s, *s1 = s + wc, *s2 = s + 2 * wc, *s3 = s + 3 * wc;
      for (size_t i = 0; i < wc; i++) { p[4 * i] = s3[i]; p[4 * i + 1] = s2[i]; p[4 * i + 2] = s1[i]; p[4 * i + 3] = s0[i]; }
    } else {
      for (size_t i = 0; i < wc; i++) for (size_t k = 0; k < bytes; k++) p[bytes * i + k] = s[(bytes - k - 1) * wc + i];
    }
  }
}

static napi_value js_unpredict(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 5) return throw_code(env, "ERR_MISSING_ARGS", "unpredict(data, predictor, rowBytes, stride, bytes) needs five arguments");
  unsigned char *data;
  size_t n, predictor, row_bytes, stride, bytes;
  if (!get_bytes(env, argv[0], "data", &data, &n) || !get_size(env, argv[1], "predictor", 3, &predictor)
      || !get_size(env, argv[2], "rowBytes", 1 << 30, &row_bytes) || !get_size(env, argv[3], "stride", 65535, &stride)
      || !get_size(env, argv[4], "bytes", 8, &bytes)) return NULL;
  int ok = row_bytes % bytes == 0 && (row_bytes / bytes) % stride == 0
    && ((predictor == 2 && (bytes == 1 || bytes == 2 || bytes == 4)) || (predictor == 3 && (bytes == 4 || bytes == 8)));
  if (!ok) {
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "unsupported predictor, sample size or row layout");
    return NULL;
  }
  size_t rows = n / row_bytes;
  if (predictor == 2) undo_horizontal(data, rows, row_bytes, stride, bytes);
  else if (rows) {
    codec_state *s = state(env);
    if (!s) return throw_code(env, "ERR_DEFLATE_INTERNAL", "codec state missing");
    if (s->row_cap < row_bytes) {
      unsigned char *r = (unsigned char *)realloc(s->row, row_bytes);
      if (!r) return throw_code(env, "ERR_DEFLATE_NO_MEMORY", "cannot allocate a row buffer");
      s->row = r; s->row_cap = row_bytes;
    }
    undo_float(data, rows, row_bytes, stride, bytes, s->row);
  }
  return NULL;
}

/*
 * Predictor 2 on little-endian samples, right to left so each sample still sees its original left neighbour:
 * the sample `stride` samples before it (the same band's previous pixel in a pixel-interleaved row; 1 otherwise).
 */
static void do_horizontal(unsigned char *b, size_t rows, size_t row_bytes, size_t bytes, size_t stride) {
  size_t count = row_bytes / bytes;
  for (size_t r = 0; r < rows; r++) {
    unsigned char *p = b + r * row_bytes;
    if (bytes == 1) {
      for (size_t i = count; i-- > stride;) p[i] = (unsigned char)(p[i] - p[i - stride]);
    } else if (bytes == 2) {
      for (size_t i = count; i-- > stride;) {
        size_t j = i - stride;
        unsigned v = (unsigned)(p[2 * i] | (p[2 * i + 1] << 8)) - (unsigned)(p[2 * j] | (p[2 * j + 1] << 8));
        p[2 * i] = (unsigned char)v; p[2 * i + 1] = (unsigned char)(v >> 8);
      }
    } else {
      for (size_t i = count; i-- > stride;) {
        unsigned char *o = p + 4 * i;
        const unsigned char *q = p + 4 * (i - stride);
        uint32_t v = ((uint32_t)o[0] | ((uint32_t)o[1] << 8) | ((uint32_t)o[2] << 16) | ((uint32_t)o[3] << 24))
                   - ((uint32_t)q[0] | ((uint32_t)q[1] << 8) | ((uint32_t)q[2] << 16) | ((uint32_t)q[3] << 24));
        o[0] = (unsigned char)v; o[1] = (unsigned char)(v >> 8); o[2] = (unsigned char)(v >> 16); o[3] = (unsigned char)(v >> 24);
      }
    }
  }
}

/* Predictor 3: per row, byte k of the planes is byte (bytes - 1 - k) of each word; then each byte minus the one before it. */
static void do_float(const unsigned char *in, unsigned char *out, size_t rows, size_t row_bytes, size_t bytes) {
  size_t wc = row_bytes / bytes;
  for (size_t r = 0; r < rows; r++) {
    const unsigned char *src = in + r * row_bytes;
    unsigned char *dst = out + r * row_bytes;
    if (bytes == 4) {
      unsigned char *d0 = dst, *d1 = dst + wc, *d2 = dst + 2 * wc, *d3 = dst + 3 * wc;
      for (size_t i = 0; i < wc; i++) { d0[i] = src[4 * i + 3]; d1[i] = src[4 * i + 2]; d2[i] = src[4 * i + 1]; d3[i] = src[4 * i]; }
    } else {
      for (size_t k = 0; k < bytes; k++) for (size_t i = 0; i < wc; i++) dst[k * wc + i] = src[i * bytes + (bytes - 1 - k)];
    }
    for (size_t j = row_bytes - 1; j > 0; j--) dst[j] = (unsigned char)(dst[j] - dst[j - 1]);
  }
}

static napi_value js_predict(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 5) return throw_code(env, "ERR_MISSING_ARGS", "predict(data, out, predictor, rowBytes, bytes[, stride]) needs five arguments");
  unsigned char *data, *out = NULL;
  size_t n, out_n = 0, predictor, row_bytes, bytes, stride = 1;
  if (!get_bytes(env, argv[0], "data", &data, &n) || !get_size(env, argv[2], "predictor", 3, &predictor)
      || !get_size(env, argv[3], "rowBytes", 1 << 30, &row_bytes) || !get_size(env, argv[4], "bytes", 8, &bytes)) return NULL;
  if (argc > 5) {
    napi_valuetype t;
    CHECK(napi_typeof(env, argv[5], &t));
    if (t != napi_undefined && !get_size(env, argv[5], "stride", 64, &stride)) return NULL;
  }
  int ok = row_bytes % bytes == 0
    && ((predictor == 2 && (bytes == 1 || bytes == 2 || bytes == 4)) || (predictor == 3 && (bytes == 4 || bytes == 8) && stride == 1));
  if (!ok) {
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "unsupported predictor, sample size or row layout");
    return NULL;
  }
  size_t rows = n / row_bytes;
  if (predictor == 2) { do_horizontal(data, rows, row_bytes, bytes, stride); return NULL; }
  if (!get_bytes(env, argv[1], "out", &out, &out_n)) return NULL;
  if (out_n < rows * row_bytes || (out < data + n && data < out + out_n)) {
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "out must hold the rows and not overlap data");
    return NULL;
  }
  do_float(data, out, rows, row_bytes, bytes);
  return NULL;
}

static napi_value js_huffman(napi_env env, napi_callback_info info) {
  unsigned char *in, *out;
  size_t in_n, out_n;
  bool rle;
  if (!io_args(env, info, "huffman(input, output[, rle]) needs input and output", &in, &in_n, &out, &out_n, &rle)) return NULL;
  static unsigned char empty[1];
  size_t n = huffman_zlib(in_n ? in : empty, in_n, out, out_n, rle ? 1 : 0);
  if (n == 0) {
    char msg[160];
    snprintf(msg, sizeof msg, "compressed data does not fit in %zu bytes (need up to %zu)", out_n, huffman_bound(in_n));
    return throw_code(env, "ERR_DEFLATE_OUTPUT_SIZE", msg);
  }
  napi_value ret;
  CHECK(napi_create_double(env, (double)n, &ret));
  return ret;
}

static napi_value js_huffman_bound(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  double n = -1;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1 || napi_get_value_double(env, argv[0], &n) != napi_ok || !(n >= 0 && n <= 9007199254740991.0)) {
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "n must be a byte count");
    return NULL;
  }
  napi_value ret;
  CHECK(napi_create_double(env, (double)huffman_bound((size_t)n), &ret));
  return ret;
}

NAPI_MODULE_INIT() {
  codec_state *s = (codec_state *)calloc(1, sizeof *s);
  if (!s || napi_set_instance_data(env, s, free_state, NULL) != napi_ok) {
    free(s);
    napi_throw_error(env, "ERR_DEFLATE_NO_MEMORY", "cannot initialise the DEFLATE codec");
    return NULL;
  }
  napi_value fn, ver;
  if (napi_create_function(env, "inflate", NAPI_AUTO_LENGTH, js_inflate, NULL, &fn) != napi_ok
      || napi_set_named_property(env, exports, "inflate", fn) != napi_ok
      || napi_create_function(env, "deflate", NAPI_AUTO_LENGTH, js_deflate, NULL, &fn) != napi_ok
      || napi_set_named_property(env, exports, "deflate", fn) != napi_ok
      || napi_create_function(env, "deflateBound", NAPI_AUTO_LENGTH, js_bound, NULL, &fn) != napi_ok
      || napi_set_named_property(env, exports, "deflateBound", fn) != napi_ok
      || napi_create_function(env, "unpredict", NAPI_AUTO_LENGTH, js_unpredict, NULL, &fn) != napi_ok
      || napi_set_named_property(env, exports, "unpredict", fn) != napi_ok
      || napi_create_function(env, "predict", NAPI_AUTO_LENGTH, js_predict, NULL, &fn) != napi_ok
      || napi_set_named_property(env, exports, "predict", fn) != napi_ok
      || napi_create_function(env, "huffman", NAPI_AUTO_LENGTH, js_huffman, NULL, &fn) != napi_ok
      || napi_set_named_property(env, exports, "huffman", fn) != napi_ok
      || napi_create_function(env, "huffmanBound", NAPI_AUTO_LENGTH, js_huffman_bound, NULL, &fn) != napi_ok
      || napi_set_named_property(env, exports, "huffmanBound", fn) != napi_ok
      || napi_get_boolean(env, true, &fn) != napi_ok
      || napi_set_named_property(env, exports, "huffmanRle", fn) != napi_ok
      || napi_create_string_utf8(env, LIBDEFLATE_VERSION_STRING, NAPI_AUTO_LENGTH, &ver) != napi_ok
      || napi_set_named_property(env, exports, "version", ver) != napi_ok) {
    napi_throw_error(env, "ERR_DEFLATE_INTERNAL", "cannot export the DEFLATE codec");
    return NULL;
  }
  return exports;
}
