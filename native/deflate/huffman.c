/*
 * Huffman-only DEFLATE (no matching), as a zlib stream: what zlib's Z_HUFFMAN_ONLY strategy writes, at a
 * fraction of its time. Horizontally differenced imagery has next to no repeats for a matcher to find, so
 * coding each byte with a per-block Huffman code is as small as any level (measured on the bench scene's
 * uint16 tiles), and zlib spends ~14 ms on a 2 MB tile doing it through its general deflate loop (per-byte
 * tallies, 16 KB blocks); this is one histogram and one table lookup per byte.
 *
 * Blocks of up to 65535 input bytes, each with its own dynamic code (or stored, when that is smaller), so
 * the output never exceeds huffman_bound(). Deterministic: the output depends on the input bytes only.
 */
#include "huffman.h"
#include <libdeflate.h>
#include <string.h>

#define BLOCK 65535
#define NLIT 257 /* 256 literals and end-of-block; no lengths, so HLIT = 257 */
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

/*
 * Code lengths (at most `limit` bits) for the `n` symbols with frequencies `freq` (0 = unused). Huffman's
 * construction over the used symbols; when the tree is deeper than `limit`, the frequencies are halved (a used
 * symbol keeps at least 1) and the code rebuilt, which always ends (equal frequencies give a balanced tree).
 * At least two symbols get a length: a single used symbol is paired with the first unused one, as zlib does,
 * so every code is complete (inflaters refuse an incomplete code-length code).
 */
static void code_lengths(const uint32_t *freq_in, int n, int limit, unsigned char *len) {
  uint32_t freq[NLIT];
  int used = 0;
  for (int i = 0; i < n; i++) { freq[i] = freq_in[i]; if (freq[i]) used++; }
  if (used < 2) {
    for (int i = 0; i < n && used < 2; i++) if (!freq[i]) { freq[i] = 1; used++; }
  }
  for (;;) {
    /* Two-queue construction: leaves sorted by frequency, internal nodes made in nondecreasing order. */
    int sym[NLIT], m = 0;
    for (int i = 0; i < n; i++) if (freq[i]) sym[m++] = i;
    for (int i = 1; i < m; i++) { /* insertion sort by (freq, symbol): deterministic */
      int s = sym[i], j = i - 1;
      while (j >= 0 && (freq[sym[j]] > freq[s] || (freq[sym[j]] == freq[s] && sym[j] > s))) { sym[j + 1] = sym[j]; j--; }
      sym[j + 1] = s;
    }
    uint64_t w[2 * NLIT];
    int parent[2 * NLIT];
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
    int depth[2 * NLIT];
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

/* One block: dynamic Huffman, or stored when that is no larger. */
static void block(bits_t *b, const unsigned char *in, size_t n, int final) {
  uint32_t freq[NLIT] = {0};
  /* Four histograms: consecutive increments of one counter would wait on each other. */
  uint32_t h[4][256];
  memset(h, 0, sizeof h);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) { h[0][in[i]]++; h[1][in[i + 1]]++; h[2][in[i + 2]]++; h[3][in[i + 3]]++; }
  for (; i < n; i++) h[0][in[i]]++;
  for (int s = 0; s < 256; s++) freq[s] = h[0][s] + h[1][s] + h[2][s] + h[3][s];
  freq[256] = 1;

  unsigned char lens[NLIT + 2];
  code_lengths(freq, NLIT, MAX_BITS, lens);
  /* Two distance codes of one bit, unused (zlib writes the same: some inflaters want a distance code). */
  lens[NLIT] = 1; lens[NLIT + 1] = 1;
  unsigned char rsym[NLIT + 2], rext[NLIT + 2];
  int nr = rle_lengths(lens, NLIT + 2, rsym, rext);
  uint32_t cfreq[19] = {0};
  for (int k = 0; k < nr; k++) cfreq[rsym[k]]++;
  unsigned char clen[19];
  code_lengths(cfreq, 19, MAX_CL_BITS, clen);
  int hclen = 19;
  while (hclen > 4 && clen[CL_ORDER[hclen - 1]] == 0) hclen--;

  uint64_t bits = 3 + 5 + 5 + 4 + 3ull * (unsigned)hclen;
  for (int k = 0; k < nr; k++) bits += clen[rsym[k]] + CL_EXTRA[rsym[k]];
  for (int s = 0; s < NLIT; s++) bits += (uint64_t)freq[s] * lens[s];
  /* Stored: the header bits, padding to a byte (at most 7 bits), LEN and NLEN, the bytes. */
  uint64_t stored = 3 + 7 + 32 + 8ull * n;
  if (stored <= bits) {
    put(b, final ? 1 : 0, 3);
    align(b);
    if (b->out + 4 + n > b->end) { b->overflow = 1; return; }
    b->out[0] = (unsigned char)n; b->out[1] = (unsigned char)(n >> 8);
    b->out[2] = (unsigned char)~n; b->out[3] = (unsigned char)(~n >> 8);
    memcpy(b->out + 4, in, n);
    b->out += 4 + n;
    return;
  }
  uint32_t code[NLIT + 2], ccode[19];
  canonical(lens, NLIT, code);
  canonical(clen, 19, ccode);
  put(b, (final ? 1 : 0) | (2 << 1), 3);
  put(b, NLIT - 257, 5);
  put(b, 2 - 1, 5);
  put(b, (uint32_t)(hclen - 4), 4);
  for (int k = 0; k < hclen; k++) put(b, clen[CL_ORDER[k]], 3);
  for (int k = 0; k < nr; k++) {
    put(b, ccode[rsym[k]], clen[rsym[k]]);
    if (CL_EXTRA[rsym[k]]) put(b, rext[k], CL_EXTRA[rsym[k]]);
  }
  /* Two literals per put: at most 30 bits, and put flushes at 32. */
  uint32_t packed[256];
  for (int s = 0; s < 256; s++) packed[s] = code[s];
  size_t j = 0;
  for (; j + 2 <= n; j += 2) {
    unsigned a = in[j], c = in[j + 1];
    put(b, packed[a] | (packed[c] << lens[a]), (unsigned)lens[a] + lens[c]);
  }
  if (j < n) put(b, packed[in[j]], lens[in[j]]);
  put(b, code[256], lens[256]);
}

size_t huffman_bound(size_t n) {
  /* zlib header and Adler-32, then per block at most its bytes and 5 bytes of stored header (+1 alignment). */
  return 2 + 4 + n + 6 * (n / BLOCK + 1) + 8;
}

size_t huffman_zlib(const unsigned char *in, size_t n, unsigned char *out, size_t out_n) {
  if (out_n < 2) return 0;
  bits_t b = {out + 2, out + out_n, 0, 0, 0};
  /* CMF 0x78 (deflate, 32 KB window), FLG 0x01 (fastest; header % 31 == 0). */
  out[0] = 0x78; out[1] = 0x01;
  size_t pos = 0;
  do {
    size_t m = n - pos > BLOCK ? BLOCK : n - pos;
    block(&b, in + pos, m, pos + m >= n);
    pos += m;
  } while (pos < n && !b.overflow);
  align(&b);
  if (b.overflow || b.out + 4 > b.end) return 0;
  uint32_t a = libdeflate_adler32(1, in, n);
  b.out[0] = (unsigned char)(a >> 24); b.out[1] = (unsigned char)(a >> 16);
  b.out[2] = (unsigned char)(a >> 8); b.out[3] = (unsigned char)a;
  return (size_t)(b.out + 4 - out);
}
