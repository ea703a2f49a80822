/*
 * test_npy.c - .npy reader/writer: the exact bytes NumPy writes, round trips
 * of every npusim dtype, the documented conversions (with hand-computed
 * round-to-nearest-even results) and every malformed-input path.
 *
 * The reference files are built byte by byte in the test from the format
 * description (NEP 1), not by the writer under test.
 */
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../util/npy.h"
#include "testutil.h"

/* The .npy fuzz target, replayed on its regressions (npy.fuzz_regress). */
#include "../../fuzz/fuzz_npy.c"
#include "fuzzreplay.h"

/* ---- helpers ---------------------------------------------------------------*/

/* A .npy image: magic, version major.0, header dict padded to 64, data. */
static size_t mk(uint8_t *buf, size_t cap, int major, const char *dict,
		 const void *data, size_t n)
{
	size_t pre = major == 1 ? 10 : 12, dl = strlen(dict);
	size_t total = (pre + dl + 1 + 63) / 64 * 64, hl = total - pre;

	ck_assert_uint_le(total + n, cap);
	memcpy(buf, "\x93NUMPY", 6);
	buf[6] = (uint8_t)major;
	buf[7] = 0;
	buf[8] = (uint8_t)hl;
	buf[9] = (uint8_t)(hl >> 8);
	if (pre == 12) {
		buf[10] = (uint8_t)(hl >> 16);
		buf[11] = (uint8_t)(hl >> 24);
	}
	memcpy(buf + pre, dict, dl);
	memset(buf + pre + dl, ' ', hl - dl - 1);
	buf[total - 1] = '\n';
	if (n)
		memcpy(buf + total, data, n);
	return total + n;
}

/* Load an image built by mk; returns the NPU_E* code. */
static int ld(const uint8_t *buf, size_t n, int want, struct npy *t,
	      struct diag *d)
{
	diag_init(d, NULL);
	return npy_load_mem(buf, n, "t.npy", want, t, d);
}

/* Expect failure with a message containing 'what'. */
static void expect_err(const uint8_t *buf, size_t n, int want,
		       const char *what)
{
	struct npy t;
	struct diag d;
	int r = ld(buf, n, want, &t, &d);

	ck_assert_int_lt(r, 0);
	ck_assert_ptr_null(t.data);
	ck_assert_msg(strstr(d.last, what) != NULL, "message '%s' lacks '%s'",
		      d.last, what);
	ck_assert_msg(strncmp(d.last, "t.npy: error: ", 14) == 0,
		      "message '%s' does not name the file", d.last);
}

static char tmpdir[64];

static void mk_tmpdir(void)
{
	strcpy(tmpdir, "/tmp/npusim_npy_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

/* Files in tmpdir, for checking that failed writes leave nothing. */
static int n_files(void)
{
	char cmd[128];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", tmpdir);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

static void rm_tmpdir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static uint8_t *read_all(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *b = malloc(1 << 20);

	ck_assert_ptr_nonnull(fp);
	*n = fread(b, 1, 1 << 20, fp);
	fclose(fp);
	return b;
}

/* ---- writing -----------------------------------------------------------------*/

/* np.save(f, np.array([[1,2,3],[4,5,6]], dtype=np.int32)) writes exactly
 * this: 10-byte prelude, 118-byte header, data from byte 128. */
START_TEST(npy_write_matches_numpy_bytes)
{
	static const char dict[] =
		"{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }";
	uint64_t shape[2] = { 2, 3 };
	struct npy t;
	uint8_t *b;
	size_t n, i;

	ck_assert_int_eq(npy_alloc(&t, DT_INT32, 2, shape), 0);
	for (i = 0; i < 6; i++)
		t.data[4 * i] = (uint8_t)(i + 1);
	ck_assert_int_eq(npy_encode(&t, &b, &n), 0);
	ck_assert_uint_eq(n, 128 + 24);
	ck_assert_int_eq(memcmp(b, "\x93NUMPY\x01\x00\x76\x00", 10), 0);
	ck_assert_int_eq(memcmp(b + 10, dict, strlen(dict)), 0);
	for (i = 10 + strlen(dict); i < 127; i++)
		ck_assert_int_eq(b[i], ' ');
	ck_assert_int_eq(b[127], '\n');
	for (i = 0; i < 6; i++) {
		ck_assert_int_eq(b[128 + 4 * i], (int)i + 1);
		ck_assert_int_eq(b[128 + 4 * i + 1], 0);
	}
	free(b);
	npy_free(&t);
}
END_TEST

/* A view encodes the caller's bytes exactly as an allocated copy of them;
 * a byte count that is not the shape's is refused (run_save_npy). */
START_TEST(npy_view_encodes_like_a_copy)
{
	uint64_t shape[2] = { 3, 5 };
	uint8_t raw[30], *b1, *b2;
	struct npy t, v;
	size_t n1, n2, i;

	for (i = 0; i < sizeof(raw); i++)
		raw[i] = (uint8_t)(7 * i + 1);
	ck_assert_int_eq(npy_alloc(&t, DT_FP16, 2, shape), 0);
	memcpy(t.data, raw, sizeof(raw));
	ck_assert_int_eq(npy_view(&v, DT_FP16, 2, shape, raw, sizeof(raw)), 0);
	ck_assert_ptr_eq(v.data, raw);
	ck_assert_int_eq(npy_encode(&t, &b1, &n1), 0);
	ck_assert_int_eq(npy_encode(&v, &b2, &n2), 0);
	ck_assert_uint_eq(n1, n2);
	ck_assert_int_eq(memcmp(b1, b2, n1), 0);
	free(b1);
	free(b2);
	npy_free(&t);
	ck_assert_int_eq(npy_view(&v, DT_FP16, 2, shape, raw, 29), NPU_ERANGE);
	ck_assert_int_eq(npy_view(&v, DT_INT4, 2, shape, raw, 8), 0);
	ck_assert_int_eq(npy_view(&v, DT_INT4, 2, shape, raw, 15), NPU_ERANGE);
}
END_TEST

/* One-element and zero-element shapes are Python tuples "(5,)" and "()". */
START_TEST(npy_write_shape_tuples)
{
	uint64_t five = 5;
	struct npy t;
	uint8_t *b;
	size_t n;

	ck_assert_int_eq(npy_alloc(&t, DT_FP16, 1, &five), 0);
	ck_assert_int_eq(npy_encode(&t, &b, &n), 0);
	ck_assert_ptr_nonnull(strstr((char *)b + 10, "'shape': (5,), }"));
	ck_assert_ptr_nonnull(strstr((char *)b + 10, "'descr': '<f2'"));
	ck_assert_uint_eq(n, 128 + 10);
	free(b);
	npy_free(&t);
	ck_assert_int_eq(npy_alloc(&t, DT_FP32, 0, NULL), 0);
	ck_assert_int_eq(npy_encode(&t, &b, &n), 0);
	ck_assert_ptr_nonnull(strstr((char *)b + 10, "'shape': (), }"));
	ck_assert_uint_eq(n, 128 + 4);
	free(b);
	npy_free(&t);
}
END_TEST

/* The raw encodings of npy.h's table. */
START_TEST(npy_write_raw_descrs)
{
	ck_assert_str_eq(npy_descr(DT_INT4), "|i1");
	ck_assert_str_eq(npy_descr(DT_INT8), "|i1");
	ck_assert_str_eq(npy_descr(DT_INT16), "<i2");
	ck_assert_str_eq(npy_descr(DT_INT32), "<i4");
	ck_assert_str_eq(npy_descr(DT_FP8E4M3), "|u1");
	ck_assert_str_eq(npy_descr(DT_FP8E5M2), "|u1");
	ck_assert_str_eq(npy_descr(DT_FP16), "<f2");
	ck_assert_str_eq(npy_descr(DT_BF16), "<u2");
	ck_assert_str_eq(npy_descr(DT_FP32), "<f4");
}
END_TEST

/* int4 is written one sign-extended value per byte. */
START_TEST(npy_write_int4_unpacks)
{
	uint64_t three = 3;
	struct npy t;
	uint8_t *b;
	size_t n;

	ck_assert_int_eq(npy_alloc(&t, DT_INT4, 1, &three), 0);
	t.data[0] = 0xE1; /* elements 0 = 1, 1 = -2 */
	t.data[1] = 0x08; /* element 2 = -8 */
	ck_assert_int_eq(npy_encode(&t, &b, &n), 0);
	ck_assert_uint_eq(n, 128 + 3);
	ck_assert_int_eq(b[128], 1);
	ck_assert_int_eq(b[129], 0xFE);
	ck_assert_int_eq(b[130], 0xF8);
	free(b);
	npy_free(&t);
}
END_TEST

/* Every dtype survives write -> load_as with the same dtype, bit for bit,
 * through a real file. */
START_TEST(npy_roundtrip_all_dtypes)
{
	uint64_t shape[3] = { 3, 1, 5 };
	struct diag d;
	int dt;

	mk_tmpdir();
	diag_init(&d, NULL);
	for (dt = 0; dt < DT_N; dt++) {
		struct npy t, u;
		char path[128];
		uint64_t i;

		ck_assert_int_eq(npy_alloc(&t, (enum npu_dtype)dt, 3, shape), 0);
		ck_assert_uint_eq(t.nbytes,
				  dtype_bytes((enum npu_dtype)dt, 15));
		/* Any bit pattern is a valid element in storage (NaNs too). */
		for (i = 0; i < t.nbytes; i++)
			t.data[i] = (uint8_t)(i * 37 + 11 + (uint64_t)dt);
		snprintf(path, sizeof(path), "%s/%s.npy", tmpdir,
			 dtype_name((enum npu_dtype)dt));
		ck_assert_int_eq(npy_write(path, &t, &d), 0);
		ck_assert_int_eq(npy_load_as(path, (enum npu_dtype)dt, &u, &d),
				 0);
		ck_assert_int_eq(u.dtype, dt);
		ck_assert_int_eq(u.ndim, 3);
		ck_assert_int_eq(memcmp(u.shape, shape, sizeof(shape)), 0);
		ck_assert_uint_eq(u.nbytes, t.nbytes);
		ck_assert_int_eq(memcmp(u.data, t.data, t.nbytes), 0);
		npy_free(&u);
		npy_free(&t);
	}
	ck_assert_int_eq(d.n_errors, 0);
	rm_tmpdir();
}
END_TEST

/* npy_read takes the file's own type where it names one npusim dtype. */
START_TEST(npy_read_natural_dtypes)
{
	static const enum npu_dtype own[] = { DT_INT8, DT_INT16, DT_INT32,
					      DT_FP16, DT_BF16, DT_FP32 };
	uint64_t two = 2;
	struct diag d;
	size_t k;

	mk_tmpdir();
	diag_init(&d, NULL);
	for (k = 0; k < sizeof(own) / sizeof(own[0]); k++) {
		struct npy t, u;
		char path[128];

		ck_assert_int_eq(npy_alloc(&t, own[k], 1, &two), 0);
		t.data[0] = 0x42;
		snprintf(path, sizeof(path), "%s/x.npy", tmpdir);
		ck_assert_int_eq(npy_write(path, &t, &d), 0);
		ck_assert_int_eq(npy_read(path, &u, &d), 0);
		ck_assert_int_eq(u.dtype, own[k]);
		ck_assert_int_eq(memcmp(u.data, t.data, t.nbytes), 0);
		npy_free(&u);
		npy_free(&t);
	}
	/* fp8 codes are '|u1': which fp8 they are is the caller's to say. */
	{
		struct npy t, u;
		char path[128];

		ck_assert_int_eq(npy_alloc(&t, DT_FP8E4M3, 1, &two), 0);
		snprintf(path, sizeof(path), "%s/f8.npy", tmpdir);
		ck_assert_int_eq(npy_write(path, &t, &d), 0);
		ck_assert_int_eq(npy_read(path, &u, &d), NPU_ETENSOR);
		ck_assert_ptr_nonnull(strstr(d.last, "declared dtype"));
		ck_assert_ptr_nonnull(strstr(d.last, "'|u1'"));
		npy_free(&t);
	}
	rm_tmpdir();
}
END_TEST

/* ---- reading: header variants ------------------------------------------------*/

START_TEST(npy_read_versions_2_and_3)
{
	static const int16_t v[3] = { -1, 2, 300 };
	uint8_t buf[256];
	struct npy t;
	struct diag d;
	int major;

	for (major = 1; major <= 3; major++) {
		size_t n = mk(buf, sizeof(buf), major,
			      "{'descr': '<i2', 'fortran_order': False, "
			      "'shape': (3,), }", v, sizeof(v));

		ck_assert_int_eq(ld(buf, n, -1, &t, &d), 0);
		ck_assert_int_eq(t.dtype, DT_INT16);
		ck_assert_int_eq(t.ndim, 1);
		ck_assert_uint_eq(t.shape[0], 3);
		ck_assert_int_eq(memcmp(t.data, v, 6), 0);
		npy_free(&t);
	}
}
END_TEST

/* Key order, quotes, Python-2 "L" suffixes, missing trailing commas. */
START_TEST(npy_read_header_variants)
{
	static const char *dicts[] = {
		"{'descr': '<i4', 'fortran_order': False, 'shape': (2, 1), }",
		"{\"shape\": (2, 1), \"descr\": \"<i4\", \"fortran_order\": "
		"False}",
		"{'fortran_order':False,'shape':(2L,1L),'descr':'<i4'}",
		"  {  'descr' : '<i4' , 'fortran_order' : False , 'shape' : "
		"( 2 , 1 , ) , }  ",
	};
	static const int32_t v[2] = { 7, -9 };
	uint8_t buf[256];
	struct npy t;
	struct diag d;
	size_t k;

	for (k = 0; k < sizeof(dicts) / sizeof(dicts[0]); k++) {
		size_t n = mk(buf, sizeof(buf), 1, dicts[k], v, sizeof(v));

		ck_assert_msg(ld(buf, n, -1, &t, &d) == 0, "%s: %s", dicts[k],
			      d.last);
		ck_assert_int_eq(t.ndim, 2);
		ck_assert_uint_eq(t.shape[0], 2);
		ck_assert_uint_eq(t.shape[1], 1);
		ck_assert_int_eq(memcmp(t.data, v, 8), 0);
		npy_free(&t);
	}
}
END_TEST

START_TEST(npy_read_scalar_and_empty)
{
	static const float one = 1.0f;
	uint8_t buf[256];
	struct npy t;
	struct diag d;
	size_t n;

	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", &one,
	       4);
	ck_assert_int_eq(ld(buf, n, -1, &t, &d), 0);
	ck_assert_int_eq(t.ndim, 0);
	ck_assert_uint_eq(npy_count(&t), 1);
	ck_assert_int_eq(memcmp(t.data, &one, 4), 0);
	npy_free(&t);
	/* A zero extent makes an empty tensor even with huge other extents. */
	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '<f4', 'fortran_order': False, 'shape': "
	       "(0, 18446744073709551615), }", NULL, 0);
	ck_assert_int_eq(ld(buf, n, -1, &t, &d), 0);
	ck_assert_uint_eq(npy_count(&t), 0);
	ck_assert_uint_eq(t.nbytes, 0);
	ck_assert_ptr_nonnull(t.data);
	npy_free(&t);
}
END_TEST

/* '>' files are byte-swapped: 0x01020304 big-endian is 16909060. */
START_TEST(npy_read_big_endian)
{
	static const uint8_t be32[4] = { 1, 2, 3, 4 };
	static const uint8_t be16[2] = { 0x3c, 0x00 }; /* fp16 1.0 */
	uint8_t buf[256];
	struct npy t;
	struct diag d;
	int32_t v;
	size_t n;

	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '>i4', 'fortran_order': False, 'shape': (1,), }",
	       be32, 4);
	ck_assert_int_eq(ld(buf, n, DT_INT32, &t, &d), 0);
	memcpy(&v, t.data, 4);
	ck_assert_int_eq(v, 16909060);
	npy_free(&t);
	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '>f2', 'fortran_order': False, 'shape': (1,), }",
	       be16, 2);
	ck_assert_int_eq(ld(buf, n, DT_FP32, &t, &d), 0);
	ck_assert_int_eq(memcmp(t.data, "\x00\x00\x80\x3f", 4), 0);
	npy_free(&t);
}
END_TEST

/* ---- conversions ---------------------------------------------------------------*/

/* Load float32 values into 'want' and compare with expected codes. */
static void conv_f32(enum npu_dtype want, const float *in, size_t n,
		     const uint32_t *want_bits)
{
	uint8_t buf[512];
	char dict[128];
	struct npy t;
	struct diag d;
	size_t len, i, sz = (size_t)dtype_bits(want) / 8;

	snprintf(dict, sizeof(dict),
		 "{'descr': '<f4', 'fortran_order': False, 'shape': (%zu,), }",
		 n);
	len = mk(buf, sizeof(buf), 1, dict, in, n * 4);
	ck_assert_msg(ld(buf, len, want, &t, &d) == 0, "%s", d.last);
	for (i = 0; i < n; i++) {
		uint32_t got = 0;

		memcpy(&got, t.data + i * sz, sz);
		ck_assert_msg(got == want_bits[i],
			      "%s: %.9g -> 0x%x, expected 0x%x",
			      dtype_name(want), (double)in[i], got,
			      want_bits[i]);
	}
	npy_free(&t);
}

/*
 * fp16 (IEEE binary16): ulp at 1.0 is 2^-10.  1 + 2^-11 is a tie between
 * 0x3C00 and 0x3C01 -> even 0x3C00; 1 + 3*2^-11 ties to 0x3C02.  65504 is
 * the largest finite value (0x7BFF); 65519 is below the 65520 midpoint to
 * infinity.  2^-24 is the smallest subnormal (0x0001); 2^-25 ties to 0;
 * 3*2^-26 is 0.75 of it -> 0x0001.
 */
START_TEST(npy_conv_f32_to_fp16_rne)
{
	const float in[] = { 1.0f, 1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f,
			     65504.0f, 65519.0f, 0x1p-24f, 0x1p-25f,
			     3 * 0x1p-26f, -0.0f, -2.5f, (float)INFINITY };
	const uint32_t out[] = { 0x3C00, 0x3C00, 0x3C02, 0x7BFF, 0x7BFF,
				 0x0001, 0x0000, 0x0001, 0x8000, 0xC100,
				 0x7C00 };

	conv_f32(DT_FP16, in, sizeof(in) / sizeof(in[0]), out);
}
END_TEST

/* bf16 is fp32's top half: 1 + 2^-8 ties to 0x3F80, 1 + 3*2^-8 to 0x3F82;
 * 1 + 2^-8 + 2^-20 is past the tie -> 0x3F81. */
START_TEST(npy_conv_f32_to_bf16_rne)
{
	const float in[] = { 1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f,
			     1.0f + 0x1p-8f + 0x1p-20f, -3.0f };
	const uint32_t out[] = { 0x3F80, 0x3F82, 0x3F81, 0xC040 };

	conv_f32(DT_BF16, in, sizeof(in) / sizeof(in[0]), out);
}
END_TEST

/* OCP OFP8: E4M3 1.0 = 0.0111.000 = 0x38, 448 = 0x7E, 449 rounds to 448;
 * 2^-9 is the smallest subnormal 0x01.  E5M2 1.0 = 0x3C, 57344 = 0x7B,
 * -inf = 0xFC. */
START_TEST(npy_conv_f32_to_fp8)
{
	const float e4[] = { 1.0f, 448.0f, 449.0f, 0x1p-9f, -0.5f };
	const uint32_t e4b[] = { 0x38, 0x7E, 0x7E, 0x01, 0xB0 };
	const float e5[] = { 1.0f, 57344.0f, -(float)INFINITY, 0x1p-16f };
	const uint32_t e5b[] = { 0x3C, 0x7B, 0xFC, 0x01 };

	conv_f32(DT_FP8E4M3, e4, 5, e4b);
	conv_f32(DT_FP8E5M2, e5, 4, e5b);
}
END_TEST

/* float64 -> fp32 rounds once: 1 + 2^-24 ties to 1.0, but 1 + 2^-24 +
 * 2^-50 is above the tie (a float32 intermediate would have lost it). */
START_TEST(npy_conv_f64_single_rounding)
{
	const double in[2] = { 1.0 + 0x1p-24, 1.0 + 0x1p-24 + 0x1p-50 };
	uint8_t buf[256];
	struct npy t;
	struct diag d;
	uint32_t a, b;
	size_t n;

	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", in,
	       16);
	ck_assert_int_eq(ld(buf, n, DT_FP32, &t, &d), 0);
	memcpy(&a, t.data, 4);
	memcpy(&b, t.data + 4, 4);
	ck_assert_uint_eq(a, 0x3F800000);
	ck_assert_uint_eq(b, 0x3F800001);
	npy_free(&t);
	/* float64 is not an npusim type by itself. */
	expect_err(buf, n, -1, "declared dtype");
}
END_TEST

/*
 * Integers into floats: 2^24 + 1 ties to 2^24 in fp32.  The int64 value
 * 2^60 + 2^36 + 1 is just above the midpoint between 2^60 and 2^60 + 2^37
 * (fp32's ulp there), so it must round up to 0x5D800001; converting through
 * a double first would drop the +1, land on the tie and round to even.
 */
START_TEST(npy_conv_int_to_float_no_double_rounding)
{
	const int32_t i32[1] = { (1 << 24) + 1 };
	const int64_t i64[2] = { ((int64_t)1 << 60) + ((int64_t)1 << 36) + 1,
				 -(((int64_t)1 << 60) + ((int64_t)1 << 36) + 1) };
	uint8_t buf[256];
	struct npy t;
	struct diag d;
	uint32_t a;
	size_t n;

	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }",
	       i32, 4);
	ck_assert_int_eq(ld(buf, n, DT_FP32, &t, &d), 0);
	memcpy(&a, t.data, 4);
	ck_assert_uint_eq(a, 0x4B800000);
	npy_free(&t);
	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }",
	       i64, 16);
	ck_assert_int_eq(ld(buf, n, DT_FP32, &t, &d), 0);
	memcpy(&a, t.data, 4);
	ck_assert_uint_eq(a, 0x5D800001);
	memcpy(&a, t.data + 4, 4);
	ck_assert_uint_eq(a, 0xDD800001);
	npy_free(&t);
}
END_TEST

/* Integer targets take integral in-range values from any numeric type. */
START_TEST(npy_conv_to_int)
{
	const int64_t i64[3] = { 100, -128, 127 };
	const float f[2] = { -3.0f, 120.0f };
	const uint8_t u1[2] = { 255, 0 };
	const uint8_t b1[3] = { 1, 0, 7 };
	uint8_t buf[256];
	struct npy t;
	struct diag d;
	int16_t s;
	size_t n;

	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }",
	       i64, sizeof(i64));
	ck_assert_int_eq(ld(buf, n, DT_INT8, &t, &d), 0);
	ck_assert_int_eq(memcmp(t.data, "\x64\x80\x7f", 3), 0);
	npy_free(&t);
	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", f,
	       sizeof(f));
	ck_assert_int_eq(ld(buf, n, DT_INT8, &t, &d), 0);
	ck_assert_int_eq(memcmp(t.data, "\xfd\x78", 2), 0);
	npy_free(&t);
	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", u1,
	       2);
	ck_assert_int_eq(ld(buf, n, DT_INT16, &t, &d), 0);
	memcpy(&s, t.data, 2);
	ck_assert_int_eq(s, 255);
	npy_free(&t);
	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", b1,
	       3);
	ck_assert_int_eq(ld(buf, n, DT_INT8, &t, &d), 0);
	ck_assert_int_eq(memcmp(t.data, "\x01\x00\x01", 3), 0);
	npy_free(&t);
}
END_TEST

/* int4 from '|i1' values: packed two per byte, low nibble first; from
 * '|V1' (ml_dtypes.int4) the low nibble is taken as is. */
START_TEST(npy_conv_int4_packing)
{
	const int8_t v[5] = { 1, -2, 3, -8, 7 };
	const uint8_t raw[3] = { 0x0f, 0xf1, 0x07 };
	uint8_t buf[256];
	struct npy t;
	struct diag d;
	size_t n;

	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '|i1', 'fortran_order': False, 'shape': (5,), }", v,
	       5);
	ck_assert_int_eq(ld(buf, n, DT_INT4, &t, &d), 0);
	ck_assert_uint_eq(t.nbytes, 3);
	ck_assert_int_eq(t.data[0], 0xE1);
	ck_assert_int_eq(t.data[1], 0x83);
	ck_assert_int_eq(t.data[2], 0x07);
	npy_free(&t);
	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '|V1', 'fortran_order': False, 'shape': (3,), }",
	       raw, 3);
	ck_assert_int_eq(ld(buf, n, DT_INT4, &t, &d), 0);
	ck_assert_int_eq(t.data[0], 0x1F);
	ck_assert_int_eq(t.data[1], 0x07);
	npy_free(&t);
}
END_TEST

/* '<u2'/'<V2' are raw bits for bf16 but plain integers for other types. */
START_TEST(npy_conv_raw_codes)
{
	const uint16_t u2[1] = { 0x3F80 };
	const uint8_t u1[2] = { 0x38, 0x7F };
	uint8_t buf[256];
	struct npy t;
	struct diag d;
	float f;
	size_t n;

	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '<u2', 'fortran_order': False, 'shape': (1,), }", u2,
	       2);
	ck_assert_int_eq(ld(buf, n, DT_BF16, &t, &d), 0);
	ck_assert_int_eq(memcmp(t.data, "\x80\x3f", 2), 0);
	npy_free(&t);
	ck_assert_int_eq(ld(buf, n, DT_FP32, &t, &d), 0);
	memcpy(&f, t.data, 4);
	ck_assert(f == 16256.0f);
	npy_free(&t);
	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '<V2', 'fortran_order': False, 'shape': (1,), }", u2,
	       2);
	ck_assert_int_eq(ld(buf, n, DT_BF16, &t, &d), 0);
	ck_assert_int_eq(memcmp(t.data, "\x80\x3f", 2), 0);
	npy_free(&t);
	expect_err(buf, n, DT_FP16, "can be loaded as bf16, not as fp16");
	/* fp8 codes, NaN code included, pass through untouched. */
	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", u1,
	       2);
	ck_assert_int_eq(ld(buf, n, DT_FP8E4M3, &t, &d), 0);
	ck_assert_int_eq(memcmp(t.data, u1, 2), 0);
	npy_free(&t);
}
END_TEST

/* Values that do not fit are named by index and value. */
START_TEST(npy_conv_errors)
{
	const int16_t i2[4] = { 1, 2, 3, 200 };
	const float f[3] = { 1.0f, 2.5f, 70000.0f };
	const float inf[1] = { (float)INFINITY };
	/* E4M3 above 448 (0x7E): 464 is the tie with 480 and rounds to even
	 * 448, but 480 itself would need the NaN code 0x7F. */
	const float big[2] = { 464.0f, 480.0f };
	uint8_t buf[256];
	size_t n;

	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 2), }",
	       i2, sizeof(i2));
	expect_err(buf, n, DT_INT8, "element [1, 1] = 200 does not fit int8 "
				    "(-128..127)");
	expect_err(buf, n, DT_INT4, "element [1, 1] = 200 does not fit int4 "
				    "(-8..7)");
	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", f,
	       sizeof(f));
	expect_err(buf, n, DT_INT32, "element [1] = 2.5 is not an integer");
	expect_err(buf, n, DT_FP16, "element [2] = 70000 overflows fp16 "
				    "(largest finite value 65504)");
	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
	       inf, 4);
	expect_err(buf, n, DT_FP8E4M3, "is +inf, which fp8e4m3 cannot");
	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
	       big, 8);
	expect_err(buf, n, DT_FP8E4M3, "element [1] = 480 overflows fp8e4m3 "
				       "(largest finite value 448)");
}
END_TEST

/* ---- malformed input ---------------------------------------------------------*/

#define DICT_OK "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }"

START_TEST(npy_bad_files)
{
	static const int32_t v[2] = { 1, 2 };
	uint8_t buf[512];
	size_t n;

	expect_err((const uint8_t *)"", 0, -1, "not a .npy file (bad magic");
	expect_err((const uint8_t *)"PK\x03\x04zipzip", 10, -1,
		   "bad magic");
	expect_err((const uint8_t *)"\x93NUMPY\x01", 7, -1,
		   "truncated .npy header (7 bytes)");
	expect_err((const uint8_t *)"\x93NUMPY\x01\x00\x05", 9, -1,
		   "truncated .npy header");
	expect_err((const uint8_t *)"\x93NUMPY\x04\x00\x00\x00", 10, -1,
		   "unsupported .npy format version 4.0");
	expect_err((const uint8_t *)"\x93NUMPY\x01\x00\xff\x00{}", 12, -1,
		   "header length 255 runs past the end of the file (12 "
		   "bytes)");
	expect_err((const uint8_t *)"\x93NUMPY\x02\x00\x00\x00\x00\x80", 12,
		   -1, "runs past the end");

	n = mk(buf, sizeof(buf), 1, DICT_OK, v, 7);
	expect_err(buf, n, -1, "data is 7 bytes but the shape needs 8 (2 "
			       "elements of '<i4'); file truncated?");
	n = mk(buf, sizeof(buf), 1, DICT_OK, "\1\0\0\0\2\0\0\0\3", 9);
	expect_err(buf, n, -1, "1 bytes of unexpected data after the tensor");
}
END_TEST

START_TEST(npy_bad_headers)
{
	static const struct {
		const char *dict, *msg;
	} cases[] = {
		{ "'descr': '<i4'}", "expected '{'" },
		{ "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), ",
		  "expected a quoted string" },
		{ "{'descr' '<i4'}", "expected ':' after a key" },
		{ "{'descr': '<i4, 'fortran_order': False}",
		  "expected ',' or '}'" },
		{ "{'descr': '<i4' 'fortran_order': False}",
		  "expected ',' or '}'" },
		{ "{'descr': '<i4', 'fortran_order': False}",
		  "lacks the 'shape' key" },
		{ "{'descr': '<i4', 'shape': (2,)}",
		  "lacks the 'fortran_order' key" },
		{ "{'descr': '<i4', 'descr': '<i4'}", "duplicate key" },
		{ "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), "
		  "'align': 0}", "unknown .npy header key 'align'" },
		{ "{'descr': '<i4', 'fortran_order': True, 'shape': (2,)}",
		  "fortran_order is True: npusim reads C-order arrays only" },
		{ "{'descr': '<i4', 'fortran_order': Maybe, 'shape': (2,)}",
		  "fortran_order must be True or False" },
		{ "{'descr': '<i4', 'fortran_order': 0, 'shape': (2,)}",
		  "expected True or False" },
		{ "{'descr': [('a', '<i4')], 'fortran_order': False, "
		  "'shape': (2,)}", "structured dtypes" },
		{ "{'descr': '|O', 'fortran_order': False, 'shape': (2,)}",
		  "pickled object array" },
		{ "{'descr': '<c8', 'fortran_order': False, 'shape': (2,)}",
		  "complex dtype '<c8'" },
		{ "{'descr': '<f16', 'fortran_order': False, 'shape': (2,)}",
		  "unsupported dtype '<f16'" },
		{ "{'descr': '<U3', 'fortran_order': False, 'shape': (2,)}",
		  "unsupported dtype '<U3'" },
		{ "{'descr': '<i4', 'fortran_order': False, 'shape': (-2,)}",
		  "negative dimension" },
		{ "{'descr': '<i4', 'fortran_order': False, 'shape': [2]}",
		  "expected '('" },
		{ "{'descr': '<i4', 'fortran_order': False, 'shape': (2 3)}",
		  "expected ',' or ')'" },
		{ "{'descr': '<i4', 'fortran_order': False, 'shape': "
		  "(1,1,1,1,1,1,1,1,1)}", "more than 8 dimensions" },
		{ "{'descr': '<i4', 'fortran_order': False, 'shape': "
		  "(99999999999999999999,)}", "dimension too large" },
		{ "{'descr': '<i4', 'fortran_order': False, 'shape': "
		  "(4294967296, 4294967296, 16)}",
		  "product overflows 64 bits" },
		{ "{'descr': '<i4', 'fortran_order': False, 'shape': "
		  "(4294967296, 1048576)}", "file truncated?" },
		{ "{'descr': '<i4', 'fortran_order': False, 'shape': (2,)} x",
		  "unexpected text after the header dict" },
		{ "{'descr': 'a\\b', 'fortran_order': False, 'shape': (2,)}",
		  "unexpected character in string" },
	};
	uint8_t buf[512];
	size_t k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		size_t n = mk(buf, sizeof(buf), 1, cases[k].dict,
			      "\1\0\0\0\2\0\0\0", 8);

		expect_err(buf, n, -1, cases[k].msg);
	}
}
END_TEST

/* Header errors point at the file offset of the problem. */
START_TEST(npy_bad_header_offset)
{
	uint8_t buf[256];
	size_t n = mk(buf, sizeof(buf), 1, "{'descr' '<i4'}", NULL, 0);

	/* '{' is byte 10, the key bytes 11-17, a space 18; the ':' is
	 * missing where '<i4' starts, byte 19. */
	expect_err(buf, n, -1, "malformed .npy header at byte 19: expected "
			       "':'");
}
END_TEST

/* Every prefix of a valid file, and every single-byte corruption of its
 * header, fails cleanly or loads a consistent tensor (run under ASan). */
START_TEST(npy_fuzz_truncate_and_mutate)
{
	static const int32_t v[6] = { 1, 2, 3, 4, 5, 6 };
	static const uint8_t vals[] = { 0, ' ', '\'', '(', ')', ',', ':', '9',
					'{', '}', 0x80, 0xff, '>', 'V', 'L' };
	uint8_t buf[256], mut[256];
	struct npy t;
	struct diag d;
	size_t n, i, k;

	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }",
	       v, sizeof(v));
	for (i = 0; i < n; i++) {
		ck_assert_int_lt(ld(buf, i, -1, &t, &d), 0);
		ck_assert_ptr_null(t.data);
		ck_assert_int_eq(d.n_errors, 1);
	}
	for (i = 0; i < 80; i++) {
		for (k = 0; k < sizeof(vals); k++) {
			int r;

			memcpy(mut, buf, n);
			mut[i] = vals[k];
			r = ld(mut, n, DT_FP32, &t, &d);
			if (r == 0) {
				ck_assert_uint_eq(t.nbytes,
						  dtype_bytes(t.dtype,
							      npy_count(&t)));
				npy_free(&t);
			} else {
				ck_assert_ptr_null(t.data);
				ck_assert_int_eq(d.n_errors, 1);
			}
		}
	}
}
END_TEST

START_TEST(npy_file_errors)
{
	struct npy t;
	struct diag d;
	char path[128];
	FILE *fp;

	mk_tmpdir();
	diag_init(&d, NULL);
	snprintf(path, sizeof(path), "%s/missing.npy", tmpdir);
	ck_assert_int_eq(npy_read(path, &t, &d), NPU_EIO);
	ck_assert_ptr_nonnull(strstr(d.last, "missing.npy: error: cannot "
					     "open: No such file"));
	ck_assert_int_eq(npy_read(tmpdir, &t, &d), NPU_EIO);
	ck_assert_ptr_nonnull(strstr(d.last, "cannot read: Is a directory"));
	snprintf(path, sizeof(path), "%s/text.npy", tmpdir);
	fp = fopen(path, "w");
	fputs("1,2,3\n", fp);
	fclose(fp);
	ck_assert_int_eq(npy_load_as(path, DT_INT8, &t, &d), NPU_ETENSOR);
	ck_assert_ptr_nonnull(strstr(d.last, "text.npy: error: not a .npy"));
	ck_assert_ptr_null(t.data);
	rm_tmpdir();
}
END_TEST

/* A failed write leaves nothing behind (util/fsout.h). */
START_TEST(npy_write_failures_leave_nothing)
{
	uint64_t two = 2;
	struct npy t;
	struct diag d;
	char path[128];
	size_t n;
	uint8_t *b;

	mk_tmpdir();
	diag_init(&d, NULL);
	ck_assert_int_eq(npy_alloc(&t, DT_INT8, 1, &two), 0);
	snprintf(path, sizeof(path), "%s/no/such/dir/x.npy", tmpdir);
	ck_assert_int_eq(npy_write(path, &t, &d), NPU_EIO);
	ck_assert_ptr_nonnull(strstr(d.last, "cannot create output file"));
	ck_assert_int_eq(n_files(), 0);
	/* An inconsistent tensor is refused before anything is created; an
	 * earlier file of the same name survives untouched. */
	snprintf(path, sizeof(path), "%s/x.npy", tmpdir);
	ck_assert_int_eq(npy_write(path, &t, &d), 0);
	t.nbytes = 3;
	ck_assert_int_eq(npy_write(path, &t, &d), NPU_EINTERNAL);
	ck_assert_int_eq(n_files(), 1);
	b = read_all(path, &n);
	ck_assert_uint_eq(n, 128 + 2);
	free(b);
	t.nbytes = 2;
	npy_free(&t);
	rm_tmpdir();
}
END_TEST

/*
 * Feed head[0..n) and then, if endless, zeros for ever into a FIFO that
 * npy_read reads: the reader must stop after the declared data and say
 * why.  Returns npy_read's code; the message is in d.
 */
static int read_fifo(const uint8_t *head, size_t n, int endless,
		     struct diag *d)
{
	char path[128];
	struct npy t;
	pid_t pid;
	int r, status;

	snprintf(path, sizeof(path), "%s/fifo.npy", tmpdir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		static const uint8_t zeros[4096];
		FILE *fp;

		signal(SIGPIPE, SIG_IGN); /* the reader leaves early: EPIPE */
		fp = fopen(path, "wb");
		if (!fp)
			_exit(1);
		fwrite(head, 1, n, fp);
		while (endless && fwrite(zeros, 1, sizeof(zeros), fp) ==
					  sizeof(zeros))
			;
		fclose(fp);
		_exit(0);
	}
	r = npy_read(path, &t, d);
	if (r == 0)
		npy_free(&t);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	remove(path);
	return r;
}

/* Regression: --input T=/dev/zero read until memory ran out; a pipe or
 * device is now read no further than its header declares. */
START_TEST(npy_read_streams_bounded)
{
	uint8_t buf[256], data[16] = { 1 };
	size_t n;
	struct npy t;
	struct diag d;

	mk_tmpdir();
	diag_init(&d, NULL);
	ck_assert_int_eq(npy_read("/dev/zero", &t, &d), NPU_ETENSOR);
	ck_assert_str_eq(d.last, "/dev/zero: error: not a .npy file (bad magic; expected \\x93NUMPY)");
	/* A good header, the data, then zeros that never end. */
	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '|i1', 'fortran_order': False, 'shape': (4, 4), }",
	       data, sizeof(data));
	ck_assert_int_eq(read_fifo(buf, n, 0, &d), 0);
	ck_assert_int_eq(read_fifo(buf, n, 1, &d), NPU_ETENSOR);
	ck_assert_ptr_nonnull(strstr(d.last, "fifo.npy: error: unexpected data after the tensor (16 elements of '|i1'): the input does not end there"));
	/* A stream may declare at most 4 GiB (a file is checked by size). */
	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '<f4', 'fortran_order': False, 'shape': (65536, 65536), }",
	       data, 0);
	ck_assert_int_eq(read_fifo(buf, n, 1, &d), NPU_ETENSOR);
	ck_assert_ptr_nonnull(strstr(d.last, "declares 17179869184 bytes of data; from a pipe or device npusim reads at most 4294967296"));
	/* Any input: a header length beyond 1 MiB is refused unread. */
	memcpy(buf, "\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12);
	ck_assert_int_eq(read_fifo(buf, 12, 1, &d), NPU_ETENSOR);
	ck_assert_ptr_nonnull(strstr(d.last, "header length 2147483647 is beyond any .npy header"));
	rm_tmpdir();
}
END_TEST

/* A regular file with bytes after the tensor: the count comes from the
 * file's size, without reading them. */
START_TEST(npy_read_file_trailing)
{
	uint8_t buf[256], data[20] = { 0 };
	size_t n;
	char path[128];
	struct npy t;
	struct diag d;
	FILE *fp;

	mk_tmpdir();
	diag_init(&d, NULL);
	n = mk(buf, sizeof(buf), 1,
	       "{'descr': '|i1', 'fortran_order': False, 'shape': (4, 4), }",
	       data, sizeof(data));
	snprintf(path, sizeof(path), "%s/t.npy", tmpdir);
	fp = fopen(path, "wb");
	fwrite(buf, 1, n, fp);
	fclose(fp);
	ck_assert_int_eq(npy_read(path, &t, &d), NPU_ETENSOR);
	ck_assert_ptr_nonnull(strstr(d.last, "4 bytes of unexpected data after the tensor (16 elements of '|i1')"));
	/* Short: read what is there, the usual message. */
	ck_assert_int_eq(truncate(path, (off_t)(n - 8)), 0);
	ck_assert_int_eq(npy_read(path, &t, &d), NPU_ETENSOR);
	ck_assert_ptr_nonnull(strstr(d.last, "data is 12 bytes but the shape needs 16"));
	rm_tmpdir();
}
END_TEST

START_TEST(npy_alloc_limits)
{
	uint64_t huge[3] = { 1ull << 32, 1ull << 32, 2 };
	struct npy t;

	ck_assert_int_eq(npy_alloc(&t, DT_INT8, 3, huge), NPU_ERANGE);
	ck_assert_int_eq(npy_alloc(&t, DT_INT8, NPY_MAX_DIMS + 1, huge),
			 NPU_ERANGE);
	ck_assert_ptr_null(t.data);
}
END_TEST

/* ---- fuzz regressions ------------------------------------------------------*/

/*
 * Every input of fuzz/regress/npy (crashers and hangs the fuzzer found)
 * and of its seed corpus fuzz/corpus/npy, through the fuzz target itself
 * (fuzz/fuzz_npy.c, included above): its invariants trap on failure.
 */
START_TEST(npy_fuzz_regress)
{
	ck_assert_int_gt(fuzz_replay_dir("fuzz/regress/npy"), 0);
	ck_assert_int_gt(fuzz_replay_dir("fuzz/corpus/npy"), 0);
}
END_TEST

static Suite *suite_npy(void)
{
	Suite *s = suite_create("npy");

	TEST_ADD(s, npy_write_matches_numpy_bytes);
	TEST_ADD(s, npy_view_encodes_like_a_copy);
	TEST_ADD(s, npy_write_shape_tuples);
	TEST_ADD(s, npy_write_raw_descrs);
	TEST_ADD(s, npy_write_int4_unpacks);
	TEST_ADD(s, npy_roundtrip_all_dtypes);
	TEST_ADD(s, npy_read_natural_dtypes);
	TEST_ADD(s, npy_read_versions_2_and_3);
	TEST_ADD(s, npy_read_header_variants);
	TEST_ADD(s, npy_read_scalar_and_empty);
	TEST_ADD(s, npy_read_big_endian);
	TEST_ADD(s, npy_conv_f32_to_fp16_rne);
	TEST_ADD(s, npy_conv_f32_to_bf16_rne);
	TEST_ADD(s, npy_conv_f32_to_fp8);
	TEST_ADD(s, npy_conv_f64_single_rounding);
	TEST_ADD(s, npy_conv_int_to_float_no_double_rounding);
	TEST_ADD(s, npy_conv_to_int);
	TEST_ADD(s, npy_conv_int4_packing);
	TEST_ADD(s, npy_conv_raw_codes);
	TEST_ADD(s, npy_conv_errors);
	TEST_ADD(s, npy_bad_files);
	TEST_ADD(s, npy_bad_headers);
	TEST_ADD(s, npy_bad_header_offset);
	TEST_ADD(s, npy_fuzz_truncate_and_mutate);
	TEST_ADD(s, npy_file_errors);
	TEST_ADD(s, npy_write_failures_leave_nothing);
	TEST_ADD(s, npy_alloc_limits);
	TEST_ADD(s, npy_read_streams_bounded);
	TEST_ADD(s, npy_read_file_trailing);
	TEST_ADD(s, npy_fuzz_regress);
	return s;
}

TEST_MAIN(suite_npy)
