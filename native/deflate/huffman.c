/*
 * Huffman-only and run-length DEFLATE as zlib streams: what zlib's Z_HUFFMAN_ONLY and Z_RLE strategies
 * write, at a fraction of their time. Horizontally differenced imagery has next to no repeats for a matcher to find, so
 * coding each byte with a per-block Huffman code is as small as any level (measured on the bench scene's
 * uint16 tiles), and zlib spends ~14 ms on a 2 MB tile doing it through its general deflate loop (per-byte
 * tallies, 16 KB blocks); this is one histogram and one table lookup per byte.
 *
 * Run-length mode (Z_RLE's parsing: a byte repeated at least three more times after it becomes a match at
 * distance 1, up to 258 long) is for float tiles after predictor 3, whose high-order byte planes are long runs;
 * zlib's Z_RLE level 1 took ~4 ms per 1 MB tile there.
 *
 * Blocks of up to 65535 input bytes, each with its own dynamic code (or stored, when that is smaller), so
 * the output never exceeds huffman_bound(). Deterministic: the output depends on the input bytes only.
 */
#include "huffman.h"
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 65535
#define NLIT 257 /* 256 literals and end-of-block */
#define NSYM 286 /* with the 29 length codes */
#define MAX_BITS 15
#define MAX_CL_BITS 7

typedef struct {
  unsigned char *out, *end;
  uint64_t buf;
  unsigned n; /* bits in buf */
  int overflow;
} bits_t;

static void put(bits_t *b, uint32_t v, unsigned len) {
  b->buf |= (uint64_t)v << b->n;
  b->n += len;
  if (b->n >= 32) {
    if (b->out + 4 > b->end) { b->overflow = 1; b->n -= 32; b->buf >>= 32; return; }
    uint32_t w = (uint32_t)b->buf;
    b->out[0] = (unsigned char)w; b->out[1] = (unsigned char)(w >> 8);
    b->out[2] = (unsigned char)(w >> 16); b->out[3] = (unsigned char)(w >> 24);
    b->out += 4; b->buf >>= 32; b->n -= 32;
  }
}

/* Flushes whole bytes and pads the last partial byte with zero bits (byte alignment). */
static void align(bits_t *b) {
  while (b->n > 0) {
    if (b->out >= b->end) { b->overflow = 1; return; }
    *b->out++ = (unsigned char)b->buf;
    b->buf >>= 8;
    b->n = b->n > 8 ? b->n - 8 : 0;
  }
  b->buf = 0;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/*
 * Code lengths (at most `limit` bits) for the `n` symbols with frequencies `freq` (0 = unused). Huffman's
 * construction over the used symbols; when the tree is deeper than `limit`, the frequencies are halved (a used
 * symbol keeps at least 1) and the code rebuilt, which always ends (equal frequencies give a balanced tree).
 * At least two symbols get a length: a single used symbol is paired with the first unused one, as zlib does,
 * so every code is complete (inflaters refuse an incomplete code-length code).
 */
static void code_lengths(const uint32_t *freq_in, int n, int limit, unsigned char *len) {
  uint32_t freq[NSYM];
  int used = 0;
  for (int i = 0; i < n; i++) { freq[i] = freq_in[i]; if (freq[i]) used++; }
  if (used < 2) {
    for (int i = 0; i < n && used < 2; i++) if (!freq[i]) { freq[i] = 1; used++; }
  }
  for (;;) {
    /* Two-queue construction: leaves sorted by frequency, internal nodes made in nondecreasing order. */
    int sym[NSYM], m = 0;
    for (int i = 0; i < n; i++) if (freq[i]) sym[m++] = i;
    /* Sorted by (freq, symbol): deterministic. Keys packed in 64 bits; qsort, not an insertion sort (a
       block's 257-286 symbols made that ~0.3 ms per 1 MB tile). */
    uint64_t key[NSYM];
    for (int i = 0; i < m; i++) key[i] = ((uint64_t)freq[sym[i]] << 16) | (unsigned)sym[i];
    qsort(key, (size_t)m, sizeof key[0], cmp_u64);
    for (int i = 0; i < m; i++) sym[i] = (int)(key[i] & 0xffff);
    uint64_t w[2 * NSYM];
    int parent[2 * NSYM];
    for (int i = 0; i < m; i++) w[i] = freq[sym[i]];
    int leaf = 0, node = m, next = m;
    for (int k = 0; k < m - 1; k++) {
      int pick[2];
      for (int t = 0; t < 2; t++) {
        if (leaf < m && (node >= next || w[leaf] <= w[node])) pick[t] = leaf++;
        else pick[t] = node++;
      }
      w[next] = w[pick[0]] + w[pick[1]];
      parent[pick[0]] = parent[pick[1]] = next;
      next++;
    }
    /* Depths: the root is the last node made. */
    int depth[2 * NSYM];
    depth[next - 1] = 0;
    int maxd = 0;
    for (int i = next - 2; i >= 0; i--) { depth[i] = depth[parent[i]] + 1; if (i < m && depth[i] > maxd) maxd = depth[i]; }
    if (maxd <= limit) {
      memset(len, 0, (size_t)n);
      for (int i = 0; i < m; i++) len[sym[i]] = (unsigned char)depth[i];
      return;
    }
    for (int i = 0; i < n; i++) if (freq[i]) freq[i] = (freq[i] >> 1) | 1;
  }
}

/* Canonical codes (RFC 1951 3.2.2), bit-reversed: DEFLATE sends a code's most significant bit first. */
static void canonical(const unsigned char *len, int n, uint32_t *code) {
  unsigned count[MAX_BITS + 1] = {0}, next[MAX_BITS + 2];
  for (int i = 0; i < n; i++) count[len[i]]++;
  count[0] = 0;
  unsigned c = 0;
  for (int bits = 1; bits <= MAX_BITS; bits++) { c = (c + count[bits - 1]) << 1; next[bits] = c; }
  for (int i = 0; i < n; i++) {
    unsigned l = len[i];
    if (!l) { code[i] = 0; continue; }
    unsigned v = next[l]++, r = 0;
    for (unsigned k = 0; k < l; k++) { r = (r << 1) | (v & 1); v >>= 1; }
    code[i] = r;
  }
}

static const unsigned char CL_ORDER[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

/* Run-length codes of the concatenated literal and distance code lengths (symbols 0-18 with extra bits). */
static int rle_lengths(const unsigned char *lens, int n, unsigned char *sym, unsigned char *extra) {
  int k = 0;
  for (int i = 0; i < n;) {
    int v = lens[i], run = 1;
    while (i + run < n && lens[i + run] == v) run++;
    int left = run;
    if (v == 0) {
      while (left >= 11) { int r = left > 138 ? 138 : left; sym[k] = 18; extra[k++] = (unsigned char)(r - 11); left -= r; }
      if (left >= 3) { sym[k] = 17; extra[k++] = (unsigned char)(left - 3); left = 0; }
    } else {
      sym[k] = (unsigned char)v; extra[k++] = 0; left--;
      while (left >= 3) { int r = left > 6 ? 6 : left; sym[k] = 16; extra[k++] = (unsigned char)(r - 3); left -= r; }
    }
    while (left-- > 0) { sym[k] = (unsigned char)v; extra[k++] = 0; }
    i += run;
  }
  return k;
}

static const unsigned char CL_EXTRA[19] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 7};

/* Length 3..258 → length code (257..285), its extra bits and their value (RFC 1951 3.2.5). */
static const unsigned short LEN_BASE[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const unsigned char LEN_EXTRA[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static unsigned char len_code[259]; /* index into LEN_BASE for each length */
static int len_ready = 0;

static void init_lengths(void) {
  if (len_ready) return;
  for (int c = 0; c < 29; c++) {
    int hi = c == 28 ? 258 : (c == 27 ? 257 : LEN_BASE[c + 1] - 1);
    for (int l = LEN_BASE[c]; l <= hi; l++) len_code[l] = (unsigned char)c;
  }
  len_ready = 1;
}

/*
 * Tokens of one block: literals (symbol < 256) and, in run-length mode, matches at distance 1 (symbol
 * 257.. with the length's extra bits in `ext`). `in` may be read one byte before `start` (the window
 * continues across blocks).
 */
static size_t tokenize(const unsigned char *in, size_t start, size_t end, int rle, uint16_t *sym, uint8_t *ext, uint32_t *freq) {
  size_t k = 0, i = start;
  if (!rle) {
    /* Four histograms: consecutive increments of one counter would wait on each other. */
    uint32_t h[4][256];
    memset(h, 0, sizeof h);
    for (; i + 4 <= end; i += 4) { h[0][in[i]]++; h[1][in[i + 1]]++; h[2][in[i + 2]]++; h[3][in[i + 3]]++; }
    for (; i < end; i++) h[0][in[i]]++;
    for (int s = 0; s < 256; s++) freq[s] += h[0][s] + h[1][s] + h[2][s] + h[3][s];
    return 0;
  }
  if (i == 0 && i < end) { sym[k] = in[0]; ext[k] = 0; k++; freq[in[0]]++; i++; }
  /* Two histograms by token parity: consecutive increments of one counter would wait on each other. */
  uint32_t f2[2][NSYM];
  memset(f2, 0, sizeof f2);
  while (i < end) {
    /* Most bytes of a noisy plane differ from the one before: that test first. */
    if (in[i] == in[i - 1] && i + 3 <= end && in[i + 1] == in[i - 1] && in[i + 2] == in[i - 1]) {
      unsigned char v = in[i - 1];
      size_t run = 3, max = end - i < 258 ? end - i : 258;
      while (run < max && in[i + run] == v) run++;
      int c = len_code[run];
      sym[k] = (uint16_t)(257 + c); ext[k] = (uint8_t)(run - LEN_BASE[c]);
      f2[k & 1][257 + c]++;
      k++;
      i += run;
    } else {
      sym[k] = in[i]; ext[k] = 0;
      f2[k & 1][in[i]]++;
      k++;
      i++;
    }
  }
  for (int t = 0; t < NSYM; t++) freq[t] += f2[0][t] + f2[1][t];
  return k;
}

/* One block: dynamic Huffman, or stored when that is no larger. `ntok` 0 with !rle: every byte a literal. */
static void block(bits_t *b, const unsigned char *in, size_t start, size_t n, int final, int rle, uint16_t *tsym, uint8_t *text) {
  uint32_t freq[NSYM] = {0};
  size_t ntok = tokenize(in, start, start + n, rle, tsym, text, freq);
  int matches = 0;
  for (int s = 257; s < NSYM; s++) if (freq[s]) { matches = 1; break; }
  freq[256] = 1;
  int nlit = NLIT;
  for (int s = NSYM - 1; s >= NLIT; s--) if (freq[s]) { nlit = s + 1; break; }

  unsigned char lens[NSYM + 2];
  code_lengths(freq, nlit, MAX_BITS, lens);
  /* Distances: code 0 (distance 1) when there are matches; two one-bit codes either way (a complete code;
     zlib writes the same when there are none: some inflaters want a distance code). */
  lens[nlit] = 1; lens[nlit + 1] = 1;
  unsigned char rsym[NSYM + 2], rext[NSYM + 2];
  int nr = rle_lengths(lens, nlit + 2, rsym, rext);
  uint32_t cfreq[19] = {0};
  for (int k = 0; k < nr; k++) cfreq[rsym[k]]++;
  unsigned char clen[19];
  code_lengths(cfreq, 19, MAX_CL_BITS, clen);
  int hclen = 19;
  while (hclen > 4 && clen[CL_ORDER[hclen - 1]] == 0) hclen--;

  uint64_t bits = 3 + 5 + 5 + 4 + 3ull * (unsigned)hclen;
  for (int k = 0; k < nr; k++) bits += clen[rsym[k]] + CL_EXTRA[rsym[k]];
  for (int s = 0; s < nlit; s++) bits += (uint64_t)freq[s] * (lens[s] + (s > 256 ? LEN_EXTRA[s - 257] + 1u : 0u));
  /* Stored: the header bits, padding to a byte (at most 7 bits), LEN and NLEN, the bytes. */
  uint64_t stored = 3 + 7 + 32 + 8ull * n;
  const unsigned char *src = in + start;
  if (stored <= bits) {
    put(b, final ? 1 : 0, 3);
    align(b);
    if (b->out + 4 + n > b->end) { b->overflow = 1; return; }
    b->out[0] = (unsigned char)n; b->out[1] = (unsigned char)(n >> 8);
    b->out[2] = (unsigned char)~n; b->out[3] = (unsigned char)(~n >> 8);
    memcpy(b->out + 4, src, n);
    b->out += 4 + n;
    return;
  }
  uint32_t code[NSYM + 2], ccode[19];
  canonical(lens, nlit, code);
  canonical(clen, 19, ccode);
  put(b, (final ? 1 : 0) | (2 << 1), 3);
  put(b, (uint32_t)(nlit - 257), 5);
  put(b, 2 - 1, 5);
  put(b, (uint32_t)(hclen - 4), 4);
  for (int k = 0; k < hclen; k++) put(b, clen[CL_ORDER[k]], 3);
  for (int k = 0; k < nr; k++) {
    put(b, ccode[rsym[k]], clen[rsym[k]]);
    if (CL_EXTRA[rsym[k]]) put(b, rext[k], CL_EXTRA[rsym[k]]);
  }
  if (!rle) {
    /* Two literals per put: at most 30 bits, and put flushes at 32. */
    size_t j = 0;
    for (; j + 2 <= n; j += 2) {
      unsigned a = src[j], c = src[j + 1];
      put(b, code[a] | (code[c] << lens[a]), (unsigned)lens[a] + lens[c]);
    }
    if (j < n) put(b, code[src[j]], lens[src[j]]);
  } else {
    /* A match: its length code, the length's extra bits, then distance code 0 (the one-bit code 0). */
    (void)matches;
    for (size_t k = 0; k < ntok; k++) {
      unsigned s = tsym[k];
      if (s < 256) {
        /* Two literals in a row (the common case) in one put: at most 30 bits. */
        unsigned t = k + 1 < ntok ? tsym[k + 1] : 256;
        if (t < 256) { put(b, code[s] | (code[t] << lens[s]), (unsigned)lens[s] + lens[t]); k++; }
        else put(b, code[s], lens[s]);
      } else {
        unsigned e = LEN_EXTRA[s - 257];
        put(b, code[s] | ((uint32_t)text[k] << lens[s]), lens[s] + e + 1);
      }
    }
  }
  put(b, code[256], lens[256]);
}

size_t huffman_bound(size_t n) {
  /* zlib header and Adler-32, then per block at most its bytes and 5 bytes of stored header (+1 alignment). */
  return 2 + 4 + n + 6 * (n / BLOCK + 1) + 8;
}

size_t huffman_zlib(const unsigned char *in, size_t n, unsigned char *out, size_t out_n, int rle) {
  if (out_n < 2) return 0;
  init_lengths();
  uint16_t *tsym = NULL;
  uint8_t *text = NULL;
  if (rle) {
    size_t cap = n < BLOCK ? (n ? n : 1) : BLOCK;
    tsym = (uint16_t *)malloc(cap * sizeof *tsym);
    text = (uint8_t *)malloc(cap);
    if (!tsym || !text) { free(tsym); free(text); return 0; }
  }
  bits_t b = {out + 2, out + out_n, 0, 0, 0};
  /* CMF 0x78 (deflate, 32 KB window), FLG 0x01 (fastest; header % 31 == 0). */
  out[0] = 0x78; out[1] = 0x01;
  size_t pos = 0;
  do {
    size_t m = n - pos > BLOCK ? BLOCK : n - pos;
    block(&b, in, pos, m, pos + m >= n, rle, tsym, text);
    pos += m;
  } while (pos < n && !b.overflow);
  free(tsym); free(text);
  align(&b);
  if (b.overflow || b.out + 4 > b.end) return 0;
  uint32_t a = libdeflate_adler32(1, in, n);
  b.out[0] = (unsigned char)(a >> 24); b.out[1] = (unsigned char)(a >> 16);
  b.out[2] = (unsigned char)(a >> 8); b.out[3] = (unsigned char)a;
  return (size_t)(b.out + 4 - out);
}
