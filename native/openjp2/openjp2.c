/*
 * GeoWeave's JPEG 2000 decoder addon: the system's OpenJPEG (the library GDAL's JP2OpenJPEG driver
 * uses), decoding one codestream held in memory, optionally without its `reduce` finest
 * resolutions. Returns what the WebAssembly build returns (src/core/raster/io/jp2/openjpeg.ts):
 * width, height, components, bits, signed and the samples pixel-interleaved as 8- or 16-bit
 * integers, so the reader treats both alike. Errors come back as exceptions carrying OpenJPEG's
 * own message. Any component count (the WebAssembly build decodes 1 or 3).
 */
#include <node_api.h>
#include <openjpeg.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

typedef struct { const unsigned char *data; size_t size; size_t pos; } mem_stream;

static OPJ_SIZE_T mem_read(void *buf, OPJ_SIZE_T n, void *user) {
  mem_stream *m = (mem_stream *)user;
  if (m->pos >= m->size) return (OPJ_SIZE_T)-1;
  size_t left = m->size - m->pos;
  if (n > left) n = left;
  memcpy(buf, m->data + m->pos, n);
  m->pos += n;
  return n;
}

static OPJ_OFF_T mem_skip(OPJ_OFF_T n, void *user) {
  mem_stream *m = (mem_stream *)user;
  if (n < 0) { if ((size_t)(-n) > m->pos) return -1; m->pos -= (size_t)(-n); return n; }
  if ((size_t)n > m->size - m->pos) n = (OPJ_OFF_T)(m->size - m->pos);
  m->pos += (size_t)n;
  return n;
}

static OPJ_BOOL mem_seek(OPJ_OFF_T n, void *user) {
  mem_stream *m = (mem_stream *)user;
  if (n < 0 || (size_t)n > m->size) return OPJ_FALSE;
  m->pos = (size_t)n;
  return OPJ_TRUE;
}

/* OpenJPEG's last error message for the exception (its warnings and info are dropped). */
typedef struct { char msg[512]; } err_sink;
static void on_error(const char *msg, void *user) {
  err_sink *e = (err_sink *)user;
  if (!e->msg[0]) { strncpy(e->msg, msg, sizeof(e->msg) - 1); size_t l = strlen(e->msg); while (l && (e->msg[l - 1] == '\n')) e->msg[--l] = 0; }
}
static void on_quiet(const char *msg, void *user) { (void)msg; (void)user; }

static napi_value fail(napi_env env, const char *msg) {
  napi_throw_error(env, "GEOWEAVE_OPJ", msg);
  return NULL;
}

/* decode(codestream: Uint8Array, reduce: number) → { width, height, components, bits, signed, data } */
static napi_value js_decode(napi_env env, napi_callback_info info) {
  size_t argc = 2; napi_value argv[2];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) return fail(env, "decode(codestream, reduce) needs a codestream");
  napi_typedarray_type tt; size_t len; void *raw; napi_value ab; size_t off;
  if (napi_get_typedarray_info(env, argv[0], &tt, &len, &raw, &ab, &off) != napi_ok || tt != napi_uint8_array) return fail(env, "the codestream must be a Uint8Array");
  int32_t reduce = 0;
  if (argc > 1) napi_get_value_int32(env, argv[1], &reduce);
  if (reduce < 0 || reduce > 32) return fail(env, "reduce must be 0..32");

  mem_stream ms = { (const unsigned char *)raw, len, 0 };
  err_sink err; memset(&err, 0, sizeof err);
  opj_codec_t *codec = opj_create_decompress(OPJ_CODEC_J2K);
  opj_stream_t *st = opj_stream_create(1 << 16, OPJ_TRUE);
  opj_image_t *img = NULL;
  unsigned char *out = NULL;
  napi_value result = NULL;
  char why[640];
  if (!codec || !st) { snprintf(why, sizeof why, "out of memory"); goto error; }
  opj_set_error_handler(codec, on_error, &err);
  opj_set_warning_handler(codec, on_quiet, NULL);
  opj_set_info_handler(codec, on_quiet, NULL);
  opj_stream_set_user_data(st, &ms, NULL);
  opj_stream_set_user_data_length(st, len);
  opj_stream_set_read_function(st, mem_read);
  opj_stream_set_skip_function(st, mem_skip);
  opj_stream_set_seek_function(st, mem_seek);
  opj_dparameters_t p;
  opj_set_default_decoder_parameters(&p);
  p.cp_reduce = (OPJ_UINT32)reduce;
  if (!opj_setup_decoder(codec, &p)) { snprintf(why, sizeof why, "setup failed"); goto error; }
  if (!opj_read_header(st, codec, &img) || !img) { snprintf(why, sizeof why, "header: %s", err.msg[0] ? err.msg : "unreadable"); goto error; }
  if (!opj_decode(codec, st, img) || !opj_end_decompress(codec, st)) { snprintf(why, sizeof why, "%s", err.msg[0] ? err.msg : "decode failed"); goto error; }
  {
    OPJ_UINT32 nc = img->numcomps;
    if (nc < 1 || nc > 16384) { snprintf(why, sizeof why, "%u components", nc); goto error; }
    OPJ_UINT32 w = img->comps[0].w, h = img->comps[0].h, prec = img->comps[0].prec, sgnd = img->comps[0].sgnd;
    for (OPJ_UINT32 c = 0; c < nc; c++) {
      opj_image_comp_t *cc = &img->comps[c];
      if (!cc->data) { snprintf(why, sizeof why, "component %u was not decoded", c); goto error; }
      if (cc->w != w || cc->h != h) { snprintf(why, sizeof why, "component %u is %ux%u, component 0 %ux%u (sub-sampled components)", c, cc->w, cc->h, w, h); goto error; }
      if (cc->prec != prec || cc->sgnd != sgnd) { snprintf(why, sizeof why, "components differ in precision or sign"); goto error; }
    }
    if (prec < 1 || prec > 16) { snprintf(why, sizeof why, "%u-bit samples are more than the decoder gives (16)", prec); goto error; }
    size_t bps = prec > 8 ? 2 : 1, n = (size_t)w * h * nc;
    if (w == 0 || h == 0 || n / nc / w != h) { snprintf(why, sizeof why, "decoded size %ux%u", w, h); goto error; }
    napi_value buf;
    if (napi_create_arraybuffer(env, n * bps, (void **)&out, &buf) != napi_ok) { snprintf(why, sizeof why, "out of memory for %zu samples", n); goto error; }
    for (OPJ_UINT32 c = 0; c < nc; c++) {
      const OPJ_INT32 *src = img->comps[c].data;
      size_t count = (size_t)w * h;
      if (bps == 1) {
        unsigned char *dst = out + c;
        for (size_t i = 0; i < count; i++, dst += nc) *dst = (unsigned char)src[i];
      } else {
        unsigned short *dst = (unsigned short *)out + c;
        for (size_t i = 0; i < count; i++, dst += nc) *dst = (unsigned short)src[i];
      }
    }
    napi_value arr, obj, v;
    napi_create_typedarray(env, bps == 1 ? (sgnd ? napi_int8_array : napi_uint8_array) : (sgnd ? napi_int16_array : napi_uint16_array), n, buf, 0, &arr);
    napi_create_object(env, &obj);
    napi_create_uint32(env, w, &v); napi_set_named_property(env, obj, "width", v);
    napi_create_uint32(env, h, &v); napi_set_named_property(env, obj, "height", v);
    napi_create_uint32(env, nc, &v); napi_set_named_property(env, obj, "components", v);
    napi_create_uint32(env, prec, &v); napi_set_named_property(env, obj, "bits", v);
    napi_get_boolean(env, sgnd != 0, &v); napi_set_named_property(env, obj, "signed", v);
    napi_set_named_property(env, obj, "data", arr);
    result = obj;
  }
  opj_image_destroy(img); opj_stream_destroy(st); opj_destroy_codec(codec);
  return result;
error:
  if (img) opj_image_destroy(img);
  if (st) opj_stream_destroy(st);
  if (codec) opj_destroy_codec(codec);
  return fail(env, why);
}

NAPI_MODULE_INIT() {
  napi_value fn, v;
  if (napi_create_function(env, "decode", NAPI_AUTO_LENGTH, js_decode, NULL, &fn) != napi_ok || napi_set_named_property(env, exports, "decode", fn) != napi_ok) return NULL;
  napi_create_string_utf8(env, opj_version(), NAPI_AUTO_LENGTH, &v);
  napi_set_named_property(env, exports, "version", v);
  return exports;
}
