/* Huffman-only and run-length DEFLATE as zlib streams (huffman.c). */
#ifndef GEOWEAVE_HUFFMAN_H
#define GEOWEAVE_HUFFMAN_H
#include <stddef.h>
#include <stdint.h>

/* Largest output huffman_zlib can write for n input bytes. */
size_t huffman_bound(size_t n);
/*
 * Compresses in[0..n) into out; returns the bytes written, 0 when out_n is too small (or memory is short).
 * rle: also code runs of one byte as matches at distance 1 (zlib's Z_RLE parsing); else literals only.
 */
size_t huffman_zlib(const unsigned char *in, size_t n, unsigned char *out, size_t out_n, int rle);

#endif
