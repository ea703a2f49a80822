/*
 * matrix_val.c - the values of the fast array model (matrix.h): each
 * result row computed from its operand rows when its write completes, by
 * the arithmetic the array performs, at the cost of the MACs themselves.
 * Stationary tiles are decoded once and shared by every mmul using them;
 * integer rows go by pairs of k (SSE2, AVX2, AVX-512 VNNI where the host
 * has them, chosen once at run time) or, int8 on a VNNI host, by quads;
 * float rows by k-ordered chains eight outputs at a time.
 *
 * Invariants: every kernel gives the bits of mtx_mac (matrix_num.c)
 * applied in increasing k from +0, which is what the per-PE model
 * (matrix_pe.c) computes; integer sums wrap modulo 2^32, so any order of
 * their products gives the same bits, float chains keep their order and
 * never fuse a product into a sum.  Nothing here knows the sequencer:
 * matrix.c calls in through mtx_fast_backend.row_values.
 */
#include "matrix_int.h"

#if defined(__clang__)
/* The MAC rule is two roundings (product, then sum); never fuse them. */
#pragma STDC FP_CONTRACT OFF
#endif

#include <stdlib.h>
#include <string.h>

#include "../../util/num.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && \
	defined(__SSE2__)
#include <immintrin.h>
#define MTX_X86 1 /* SSE2 always; AVX2 when the host has it (mtx_imac) */
#endif

/*
 * Decoded stationary tile (rows x cols values), built on first use.
 * A tile is decoded once, when its first result row is computed, and
 * shared by every mmul that reuses it: decoding per row would cost K*N per
 * row instead of per tile.
 */
static union mtx_val *tile_dec(struct mtx_tile *t)
{
	uint32_t r;

	if (!t->dec) {
		union mtx_val *v = malloc((size_t)t->rows * t->cols * sizeof(*v));

		if (!v)
			return NULL;
		for (r = 0; r < t->rows; r++)
			mtx_decode(t->type, t->data + (size_t)r * t->row_bytes,
				   t->cols, v + (size_t)r * t->cols);
		t->dec = v;
	}
	return t->dec;
}

/* Scratch of n values in the unit (one decoded row, one row of sums). */
static union mtx_val *scratch(struct mtx *m, uint32_t n)
{
	if (n > m->n_tmp) {
		union mtx_val *v = realloc(m->tmp, (size_t)n * sizeof(*v));

		if (!v)
			return NULL;
		m->tmp = v;
		m->n_tmp = n;
	}
	return m->tmp;
}

/*
 * acc[j] (+)= a * row[j] for j < n: one k step of n independent chains.
 * Integers wrap modulo 2^32 and floats round the product, then the sum, to
 * fp32: exactly num_mac_i32 / num_mac_f32 (num.h), written out here
 * because this loop is the functional work of every mmul.  Eight chains at
 * a time in GCC/clang vector extensions (lowered to SSE2 on the baseline
 * x86-64 target; no -march): the chains are independent (one per output)
 * and each still adds its products in k order, and the product and the
 * sum are separate statements, never contracted into an FMA (ISO C's
 * default in GCC, the pragma above for clang), so the results are
 * bit-identical to the scalar rule.  (The compiler's own vectoriser at -O2
 * leaves loops of unknown length alone.)
 */

static void mac_row_i32(int32_t *acc, int32_t a, const int32_t *row, uint32_t n)
{
	const uint32_t ua = (uint32_t)a;
	const mtx_v8u32 va = { ua, ua, ua, ua, ua, ua, ua, ua };
	uint32_t j = 0;

	for (; j + 8 <= n; j += 8) {
		mtx_v8u32 s, r;

		/* unsigned lanes: the sum wraps modulo 2^32 */
		memcpy(&s, acc + j, sizeof(s));
		memcpy(&r, row + j, sizeof(r));
		s += va * r;
		memcpy(acc + j, &s, sizeof(s));
	}
	for (; j < n; j++)
		acc[j] = (int32_t)((uint32_t)acc[j] + ua * (uint32_t)row[j]);
}

static void mac_row_f32(float *acc, float a, const float *row, uint32_t n)
{
	const mtx_v8f32 va = { a, a, a, a, a, a, a, a };
	uint32_t j = 0;

	for (; j + 8 <= n; j += 8) {
		mtx_v8f32 s, r, p;

		memcpy(&s, acc + j, sizeof(s));
		memcpy(&r, row + j, sizeof(r));
		p = va * r;		/* rounded to fp32 before the add */
		s = s + p;
		memcpy(acc + j, &s, sizeof(s));
	}
	for (; j < n; j++) {
		float p = a * row[j];

		acc[j] = acc[j] + p;
	}
}

static void mac_row(int fl, union mtx_val *acc, union mtx_val a,
		    const union mtx_val *row, uint32_t n)
{
	/* union mtx_val is exactly one int32_t or float (matrix_int.h) */
	if (fl)
		mac_row_f32(&acc->f, a.f, &row->f, n);
	else
		mac_row_i32(&acc->i, a.i, &row->i, n);
}

/*
 * ---- Integer MACs -------------------------------------------------------
 *
 * Integer inputs (int4, int8, int16) decode to values that fit int16, and
 * int32 accumulation wraps modulo 2^32 (numerics.md "Accumulation").
 * Addition modulo 2^32 is associative and commutative, so every order of
 * the same products gives the same bits as the chain in k order: the
 * integer path may multiply two k at once.  Operands are packed in pairs
 * of k, one 32-bit word holding the int16 values of k = 2p (low half) and
 * 2p + 1 (high half; 0 past an odd K): the operand row as ap[p], the
 * stationary (or B) tile as w[p][n], np words per row.  Then
 *   out[n] = sum over p of lo(ap[p]) lo(w[p][n]) + hi(ap[p]) hi(w[p][n])
 * is x86's pmaddwd per 32-bit lane followed by a wrapping add.  pmaddwd
 * leaves int32 only for (-2^15)^2 + (-2^15)^2 = 2^31, which it returns as
 * -2^31: the same value modulo 2^32.  An int8 GEMM row of 32 outputs
 * over K = 32 is 16 x 4 such instructions with AVX2 instead of 1,024
 * emulated 32-bit multiplies (SSE2 has none).  The float types keep the
 * k-ordered chains of mac_row (their rounding is not associative).
 */

/* The int16 halves of a packed word, as int32. */
static int32_t lo16(uint32_t v)
{
	return (int32_t)(v & 0xffff) - (int32_t)(v & 0x8000) * 2;
}

static int32_t hi16(uint32_t v) { return lo16(v >> 16); }

/* One packed word from two values (each in the int16 range). */
static uint32_t pack16(int32_t a, int32_t b)
{
	return ((uint32_t)a & 0xffff) | ((uint32_t)b & 0xffff) << 16;
}

static void imac_c(const uint32_t *ap, uint32_t kp, const uint32_t *w,
		   uint32_t np, uint32_t *out)
{
	uint32_t p, n;

	memset(out, 0, (size_t)np * sizeof(*out));
	for (p = 0; p < kp; p++) {
		uint32_t a0 = (uint32_t)lo16(ap[p]), a1 = (uint32_t)hi16(ap[p]);
		const uint32_t *wr = w + (size_t)p * np;

		/* unsigned: the products and the sum wrap modulo 2^32 */
		for (n = 0; n < np; n++)
			out[n] += a0 * (uint32_t)lo16(wr[n]) +
				  a1 * (uint32_t)hi16(wr[n]);
	}
}

#ifdef MTX_X86
/* SSE2 (the x86-64 baseline): 16, then 8 outputs at a time, the sums in
 * registers across all of k. */
static void imac_sse2(const uint32_t *ap, uint32_t kp, const uint32_t *w,
		      uint32_t np, uint32_t *out)
{
	uint32_t n = 0, p;

	for (; n + 16 <= np; n += 16) {
		__m128i s0 = _mm_setzero_si128(), s1 = s0, s2 = s0, s3 = s0;

		for (p = 0; p < kp; p++) {
			const __m128i *wr = (const __m128i *)(w + (size_t)p * np + n);
			__m128i a = _mm_set1_epi32((int)ap[p]);

			s0 = _mm_add_epi32(s0, _mm_madd_epi16(a, _mm_loadu_si128(wr)));
			s1 = _mm_add_epi32(s1, _mm_madd_epi16(a, _mm_loadu_si128(wr + 1)));
			s2 = _mm_add_epi32(s2, _mm_madd_epi16(a, _mm_loadu_si128(wr + 2)));
			s3 = _mm_add_epi32(s3, _mm_madd_epi16(a, _mm_loadu_si128(wr + 3)));
		}
		_mm_storeu_si128((__m128i *)(out + n), s0);
		_mm_storeu_si128((__m128i *)(out + n + 4), s1);
		_mm_storeu_si128((__m128i *)(out + n + 8), s2);
		_mm_storeu_si128((__m128i *)(out + n + 12), s3);
	}
	for (; n + 8 <= np; n += 8) {
		__m128i s0 = _mm_setzero_si128(), s1 = s0;

		for (p = 0; p < kp; p++) {
			const __m128i *wr = (const __m128i *)(w + (size_t)p * np + n);
			__m128i a = _mm_set1_epi32((int)ap[p]);

			s0 = _mm_add_epi32(s0, _mm_madd_epi16(a, _mm_loadu_si128(wr)));
			s1 = _mm_add_epi32(s1, _mm_madd_epi16(a, _mm_loadu_si128(wr + 1)));
		}
		_mm_storeu_si128((__m128i *)(out + n), s0);
		_mm_storeu_si128((__m128i *)(out + n + 4), s1);
	}
}

/* AVX2 where the host has it (checked once at run time): 64, 32, then 8
 * outputs at a time. */
__attribute__((target("avx2")))
static void imac_avx2(const uint32_t *ap, uint32_t kp, const uint32_t *w,
		      uint32_t np, uint32_t *out)
{
	uint32_t n = 0, p;

	/* (the eight sums written out: an array of them stays in memory at
	 * -O2, a load and a store per multiply) */
#define IMAC_STEP(s, j) \
	s = _mm256_add_epi32(s, _mm256_madd_epi16(a, _mm256_loadu_si256(wr + j)))
	for (; n + 64 <= np; n += 64) {
		__m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
		__m256i s4 = s0, s5 = s0, s6 = s0, s7 = s0;

		for (p = 0; p < kp; p++) {
			const __m256i *wr = (const __m256i *)(w + (size_t)p * np + n);
			__m256i a = _mm256_set1_epi32((int)ap[p]);

			IMAC_STEP(s0, 0);
			IMAC_STEP(s1, 1);
			IMAC_STEP(s2, 2);
			IMAC_STEP(s3, 3);
			IMAC_STEP(s4, 4);
			IMAC_STEP(s5, 5);
			IMAC_STEP(s6, 6);
			IMAC_STEP(s7, 7);
		}
		_mm256_storeu_si256((__m256i *)(out + n), s0);
		_mm256_storeu_si256((__m256i *)(out + n + 8), s1);
		_mm256_storeu_si256((__m256i *)(out + n + 16), s2);
		_mm256_storeu_si256((__m256i *)(out + n + 24), s3);
		_mm256_storeu_si256((__m256i *)(out + n + 32), s4);
		_mm256_storeu_si256((__m256i *)(out + n + 40), s5);
		_mm256_storeu_si256((__m256i *)(out + n + 48), s6);
		_mm256_storeu_si256((__m256i *)(out + n + 56), s7);
	}
	for (; n + 32 <= np; n += 32) {
		__m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;

		for (p = 0; p < kp; p++) {
			const __m256i *wr = (const __m256i *)(w + (size_t)p * np + n);
			__m256i a = _mm256_set1_epi32((int)ap[p]);

			IMAC_STEP(s0, 0);
			IMAC_STEP(s1, 1);
			IMAC_STEP(s2, 2);
			IMAC_STEP(s3, 3);
		}
		_mm256_storeu_si256((__m256i *)(out + n), s0);
		_mm256_storeu_si256((__m256i *)(out + n + 8), s1);
		_mm256_storeu_si256((__m256i *)(out + n + 16), s2);
		_mm256_storeu_si256((__m256i *)(out + n + 24), s3);
	}
	for (; n + 8 <= np; n += 8) {
		__m256i s0 = _mm256_setzero_si256();

		for (p = 0; p < kp; p++) {
			const __m256i *wr = (const __m256i *)(w + (size_t)p * np + n);

			s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(
				_mm256_set1_epi32((int)ap[p]), _mm256_loadu_si256(wr)));
		}
		_mm256_storeu_si256((__m256i *)(out + n), s0);
	}
#undef IMAC_STEP
}

/*
 * AVX-512 with VNNI where the host has it: vpdpwssd adds both products of
 * a pair to the sum in one instruction (no saturation: modulo 2^32, the
 * same bits as pmaddwd then paddd), sixteen outputs a register - 128 and
 * 16 outputs at a time, the last 8 as AVX2 does.  Half the
 * instructions of imac_avx2 per MAC.
 */
__attribute__((target("avx2,avx512f,avx512bw,avx512vnni")))
static void imac_vnni(const uint32_t *ap, uint32_t kp, const uint32_t *w,
		      uint32_t np, uint32_t *out)
{
	uint32_t n = 0, p;

#define IMAC_STEP(s, j) \
	s = _mm512_dpwssd_epi32(s, a, _mm512_loadu_si512(wr + 16 * (j)))
	for (; n + 128 <= np; n += 128) {
		__m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
		__m512i s4 = s0, s5 = s0, s6 = s0, s7 = s0;

		for (p = 0; p < kp; p++) {
			const uint32_t *wr = w + (size_t)p * np + n;
			__m512i a = _mm512_set1_epi32((int)ap[p]);

			IMAC_STEP(s0, 0);
			IMAC_STEP(s1, 1);
			IMAC_STEP(s2, 2);
			IMAC_STEP(s3, 3);
			IMAC_STEP(s4, 4);
			IMAC_STEP(s5, 5);
			IMAC_STEP(s6, 6);
			IMAC_STEP(s7, 7);
		}
		_mm512_storeu_si512(out + n, s0);
		_mm512_storeu_si512(out + n + 16, s1);
		_mm512_storeu_si512(out + n + 32, s2);
		_mm512_storeu_si512(out + n + 48, s3);
		_mm512_storeu_si512(out + n + 64, s4);
		_mm512_storeu_si512(out + n + 80, s5);
		_mm512_storeu_si512(out + n + 96, s6);
		_mm512_storeu_si512(out + n + 112, s7);
	}
	/* (narrower arrays: sixteen at a time, still half AVX2's work) */
	for (; n + 16 <= np; n += 16) {
		__m512i s0 = _mm512_setzero_si512();

		for (p = 0; p < kp; p++) {
			const uint32_t *wr = w + (size_t)p * np + n;
			__m512i a = _mm512_set1_epi32((int)ap[p]);

			IMAC_STEP(s0, 0);
		}
		_mm512_storeu_si512(out + n, s0);
	}
#undef IMAC_STEP
	if (n < np) { /* the last 8 (np is a multiple of 8) */
		__m256i s0 = _mm256_setzero_si256();

		for (p = 0; p < kp; p++)
			s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(
				_mm256_set1_epi32((int)ap[p]),
				_mm256_loadu_si256((const __m256i *)
						   (w + (size_t)p * np + n))));
		_mm256_storeu_si256((__m256i *)(out + n), s0);
	}
}

/* 1 if the host runs AVX2, 2 if also AVX-512 BW with VNNI (asked once;
 * the answer never changes). */
static int host_simd(void)
{
	static int have = -1;

	if (have < 0) {
		__builtin_cpu_init();
		have = !__builtin_cpu_supports("avx2") ? 0 :
		       __builtin_cpu_supports("avx512f") &&
		       __builtin_cpu_supports("avx512bw") &&
		       __builtin_cpu_supports("avx512vnni") ? 2 : 1;
	}
	return have;
}
#endif

void mtx_imac(const uint32_t *ap, uint32_t kp, const uint32_t *w,
	      uint32_t np, uint32_t *out, int impl)
{
#ifdef MTX_X86
	if ((impl == 0 || impl == 4) && host_simd() == 2) {
		imac_vnni(ap, kp, w, np, out);
		return;
	}
	if ((impl == 0 || impl == 3) && host_simd()) {
		imac_avx2(ap, kp, w, np, out);
		return;
	}
	if (impl == 0 || impl == 2) {
		imac_sse2(ap, kp, w, np, out);
		return;
	}
#endif
	imac_c(ap, kp, w, np, out);
}

/* Columns padded to the kernels' step of 8. */
static uint32_t pad8(uint32_t n) { return (n + 7) & ~7u; }

/*
 * ---- Int8 quads ---------------------------------------------------------
 *
 * int8 x int8 on a host with AVX-512 VNNI: four k per 32-bit word, twice
 * the products of a pair instruction.  vpdpbusd multiplies unsigned bytes
 * by signed ones, so the operand row is offset into unsigned range,
 * a + 128, and the offset's share taken off at the end:
 *   sum_k a_k w_k = sum_k (a_k + 128) w_k - 128 sum_k w_k   (mod 2^32),
 * with sum_k w_k per column (wsum) counted once per tile.  Each byte
 * product fits int16 and vpdpbusd adds the four of a word to the int32
 * lane with wrap-around (no saturation: that is vpdpbusds), so the sums
 * are the k-ordered chains' bits, as for the pairs.  Word [q][n] of the
 * tile holds w[4q .. 4q+3][n] as bytes (0 past K, which adds nothing
 * whatever the operand's padding byte); np is a multiple of 16.
 */
static void imac8_c(const uint32_t *aq, uint32_t kq, const uint32_t *w,
		    uint32_t np, const int32_t *wsum, uint32_t *out)
{
	uint32_t q, n, i;

	for (n = 0; n < np; n++)
		out[n] = 0u - ((uint32_t)wsum[n] << 7);
	for (q = 0; q < kq; q++)
		for (i = 0; i < 4; i++) {
			uint32_t a = aq[q] >> (8 * i) & 0xff;

			for (n = 0; n < np; n++)
				out[n] += a * (uint32_t)(int32_t)(int8_t)
					  (w[(size_t)q * np + n] >> (8 * i));
		}
}

#ifdef MTX_X86
__attribute__((target("avx2,avx512f,avx512bw,avx512vnni")))
static void imac8_vnni(const uint32_t *aq, uint32_t kq, const uint32_t *w,
		       uint32_t np, const int32_t *wsum, uint32_t *out)
{
	uint32_t n = 0, q;

#define IMAC8_STEP(s, j) \
	s = _mm512_dpbusd_epi32(s, a, _mm512_loadu_si512(wr + 16 * (j)))
#define IMAC8_OUT(s, j) \
	_mm512_storeu_si512(out + n + 16 * (j), _mm512_sub_epi32(s, \
		_mm512_slli_epi32(_mm512_loadu_si512(wsum + n + 16 * (j)), 7)))
	for (; n + 128 <= np; n += 128) {
		__m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
		__m512i s4 = s0, s5 = s0, s6 = s0, s7 = s0;

		for (q = 0; q < kq; q++) {
			const uint32_t *wr = w + (size_t)q * np + n;
			__m512i a = _mm512_set1_epi32((int)aq[q]);

			IMAC8_STEP(s0, 0);
			IMAC8_STEP(s1, 1);
			IMAC8_STEP(s2, 2);
			IMAC8_STEP(s3, 3);
			IMAC8_STEP(s4, 4);
			IMAC8_STEP(s5, 5);
			IMAC8_STEP(s6, 6);
			IMAC8_STEP(s7, 7);
		}
		IMAC8_OUT(s0, 0);
		IMAC8_OUT(s1, 1);
		IMAC8_OUT(s2, 2);
		IMAC8_OUT(s3, 3);
		IMAC8_OUT(s4, 4);
		IMAC8_OUT(s5, 5);
		IMAC8_OUT(s6, 6);
		IMAC8_OUT(s7, 7);
	}
	/* narrower arrays: sixteen columns at a time, in two chains (odd and
	 * even q) so that the adds do not wait on each other's latency */
	for (; n < np; n += 16) {
		__m512i s0 = _mm512_setzero_si512(), s1 = s0;

		for (q = 0; q + 2 <= kq; q += 2) {
			const uint32_t *wr = w + (size_t)q * np + n;
			__m512i a = _mm512_set1_epi32((int)aq[q]);

			IMAC8_STEP(s0, 0);
			wr += np;
			a = _mm512_set1_epi32((int)aq[q + 1]);
			IMAC8_STEP(s1, 0);
		}
		if (q < kq) {
			const uint32_t *wr = w + (size_t)q * np + n;
			__m512i a = _mm512_set1_epi32((int)aq[q]);

			IMAC8_STEP(s0, 0);
		}
		s0 = _mm512_add_epi32(s0, s1);
		IMAC8_OUT(s0, 0);
	}
#undef IMAC8_STEP
#undef IMAC8_OUT
}
#endif

int mtx_imac8_fast(void)
{
#ifdef MTX_X86
	return host_simd() == 2;
#else
	return 0;
#endif
}

void mtx_imac8(const uint32_t *aq, uint32_t kq, const uint32_t *w,
	       uint32_t np, const int32_t *wsum, uint32_t *out, int impl)
{
#ifdef MTX_X86
	if ((impl == 0 || impl == 4) && host_simd() == 2) {
		imac8_vnni(aq, kq, w, np, wsum, out);
		return;
	}
#endif
	imac8_c(aq, kq, w, np, wsum, out);
}

/*
 * The int8 tile t (rows x cols values v) as quads of k into t->wq, with
 * its column sums; 0, 1 when a value is outside int8 (the tile then
 * stays with pairs), or NPU_ENOMEM.
 */
static int pack_quads(struct mtx_tile *t, const union mtx_val *v)
{
	uint32_t kq = (t->rows + 3) / 4, np = (t->cols + 15) & ~15u, k, n;
	uint32_t *w = calloc((size_t)kq * np + 1, sizeof(*w));
	int32_t *sum = calloc((size_t)np + 1, sizeof(*sum));

	if (!w || !sum) {
		free(w);
		free(sum);
		return NPU_ENOMEM;
	}
	for (k = 0; k < t->rows; k++)
		for (n = 0; n < t->cols; n++) {
			int32_t x = v[(size_t)k * t->cols + n].i;

			if (x < -128 || x > 127) {
				free(w);
				free(sum);
				return 1;
			}
			w[(size_t)(k / 4) * np + n] |= ((uint32_t)x & 0xff)
						       << (8 * (k % 4));
			sum[n] += x;
		}
	t->wq = w;
	t->wq_sum = sum;
	t->wq_np = np;
	return 0;
}

/*
 * rows x cols values (row k of K, stride cols) as pairs of k: word [p][n]
 * holds rows 2p and 2p + 1 of column n; padding (an odd last row, columns
 * up to np) is 0 and adds nothing.
 */
static uint32_t *pack_pairs(const union mtx_val *v, uint32_t rows,
			    uint32_t cols, uint32_t np)
{
	uint32_t kp = (rows + 1) / 2, p, n;
	uint32_t *w = calloc((size_t)kp * np + 1, sizeof(*w));

	if (!w)
		return NULL;
	for (p = 0; p < kp; p++)
		for (n = 0; n < cols; n++)
			w[(size_t)p * np + n] =
				pack16(v[(size_t)2 * p * cols + n].i,
				       2 * p + 1 < rows ?
				       v[(size_t)(2 * p + 1) * cols + n].i : 0);
	return w;
}

/* Integer scratch of n words (the operand pairs and the sums). */
static uint32_t *iscratch(struct mtx *m, uint32_t n)
{
	if (n > m->n_itmp) {
		uint32_t *v = realloc(m->itmp, (size_t)n * sizeof(*v));

		if (!v)
			return NULL;
		m->itmp = v;
		m->n_itmp = n;
	}
	return m->itmp;
}

/*
 * One result row of an int8 WS/IS instruction by quads (the operand row
 * raw: K int8 values; the tile packed by pack_quads), into dst: the same
 * sums as by pairs.  Only on a VNNI host, hence little-endian: a word of
 * the row is four k in order.
 */
static int fast_row_quads(struct mtx *m, const struct mtx_tile *t,
			  const uint8_t *raw, uint32_t K, uint8_t *dst,
			  uint32_t cols)
{
	uint32_t kq = (K + 3) / 4, q;
	uint32_t *aq = iscratch(m, kq + t->wq_np);

	if (!aq)
		return NPU_ENOMEM;
	/* a + 128 per byte, four at a time; the last word's padding bytes
	 * are 0x80 (the tile's rows there are 0) */
	for (q = 0; q < K / 4; q++) {
		uint32_t x;

		memcpy(&x, raw + 4 * q, 4);
		aq[q] = x ^ 0x80808080u;
	}
	if (K % 4) {
		uint32_t x = 0;

		memcpy(&x, raw + 4 * q, K % 4);
		aq[q] = x ^ 0x80808080u;
	}
	mtx_imac8(aq, kq, t->wq, t->wq_np, t->wq_sum, aq + kq, 0);
	memcpy(dst, aq + kq, (size_t)cols * 4);
	return 0;
}

/*
 * One result row of an integer instruction (WS, IS, OS) by pairs of k:
 * the same int32 sums as the k-ordered chains (see "Integer MACs").
 */
static int fast_row_int(struct mtx *m, struct mtx_insn *in, uint32_t row,
			uint8_t *dst, uint32_t cols)
{
	uint32_t K = in->k, kp = (K + 1) / 2, p, j, np;
	const uint32_t *w;
	uint32_t *ap, *out;

	if (in->df == MTX_OS) {
		/* B as pairs and A^T as int16, once per instruction (all
		 * reads have completed by its first result row) */
		if (!in->wp) {
			union mtx_val *v = malloc((size_t)K *
						  (in->m > in->n ? in->m : in->n) *
						  sizeof(*v));
			uint32_t k;

			if (!v)
				return NPU_ENOMEM;
			in->wp_np = pad8(in->n);
			in->at16 = malloc((size_t)K * in->m * sizeof(int16_t));
			for (k = 0; k < K; k++)
				mtx_decode(in->in_type,
					   in->st[1].buf + (size_t)k * in->st[1].bytes,
					   in->n, v + (size_t)k * in->n);
			in->wp = pack_pairs(v, K, in->n, in->wp_np);
			if (in->at16)
				for (k = 0; k < K; k++) {
					mtx_decode(in->in_type,
						   in->st[0].buf + (size_t)k * in->st[0].bytes,
						   in->m, v);
					for (j = 0; j < in->m; j++)
						in->at16[(size_t)k * in->m + j] =
							(int16_t)v[j].i;
				}
			free(v);
			if (!in->wp || !in->at16)
				return NPU_ENOMEM;
		}
		w = in->wp;
		np = in->wp_np;
		if (!(ap = iscratch(m, kp + np)))
			return NPU_ENOMEM;
		for (p = 0; p < kp; p++)
			ap[p] = pack16(in->at16[(size_t)2 * p * in->m + row],
				       2 * p + 1 < K ?
				       in->at16[(size_t)(2 * p + 1) * in->m + row] : 0);
	} else {
		/* WS: A row x W (K x N); IS: B^T row x A^T (K x M) */
		struct mtx_tile *t = in->tile;
		const uint8_t *raw = in->st[0].buf + (size_t)row * in->st[0].bytes;

		/* (arrays narrower than a 16-lane step keep the pairs' 8-lane
		 * one: 7 % faster at 8x8) */
		if (in->in_type == DT_INT8 && t->type == DT_INT8 &&
		    t->cols >= 16 && !t->wq_none && mtx_imac8_fast()) {
			if (!t->wq) {
				union mtx_val *v = tile_dec(t);
				int rc;

				if (!v || (rc = pack_quads(t, v)) < 0)
					return NPU_ENOMEM;
				t->wq_none = rc == 1;
			}
			if (t->wq)
				return fast_row_quads(m, t, raw, K, dst, cols);
		}
		if (!t->wp) {
			union mtx_val *v = tile_dec(t);

			if (!v)
				return NPU_ENOMEM;
			t->wp_np = pad8(t->cols);
			if (!(t->wp = pack_pairs(v, t->rows, t->cols, t->wp_np)))
				return NPU_ENOMEM;
		}
		w = t->wp;
		np = t->wp_np;
		if (!(ap = iscratch(m, kp + np)))
			return NPU_ENOMEM;
		if (in->in_type == DT_INT8) {
			const int8_t *a = (const int8_t *)raw;

			for (p = 0; p < K / 2; p++)
				ap[p] = pack16(a[2 * p], a[2 * p + 1]);
			if (K & 1)
				ap[kp - 1] = pack16(a[K - 1], 0);
		} else {
			union mtx_val *a = scratch(m, K);

			if (!a)
				return NPU_ENOMEM;
			mtx_decode(in->in_type, raw, K, a);
			for (p = 0; p < kp; p++)
				ap[p] = pack16(a[2 * p].i,
					       2 * p + 1 < K ? a[2 * p + 1].i : 0);
		}
	}
	out = ap + kp;
	mtx_imac(ap, kp, w, np, out, 0);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(dst, out, (size_t)cols * 4);
#else
	for (j = 0; j < cols; j++)
		mtx_put_le32(dst + 4 * j, out[j]);
#endif
	return 0;
}

/*
 * One result row by the array's arithmetic: each output is the chain of
 * products in increasing k from +0, as the partial sum moves down the
 * column (WS, IS) or accumulates in place (OS); padded PEs add +0*+0,
 * which changes no sum, so they are skipped.  The loops run k outside and
 * the outputs inside; every output still sees its products in k order.
 */
static int fast_row_values(struct mtx *m, struct mtx_insn *in, uint32_t row)
{
	struct mtx_stream *w = &in->st[in->w_st];
	uint8_t *dst = w->buf + (size_t)row * w->bytes;
	int fl = dtype_is_float((enum npu_dtype)in->in_type);
	uint32_t K = in->k, j, k, cols = w->bytes / 4;
	union mtx_val *acc, *a, *v;

	if (in->kind == MTX_OUT) {
		mtx_mout_row(in, row);
		return 0;
	}
	if (in->acc_type == DT_INT32)
		return fast_row_int(m, in, row, dst, cols);
	/* acc[0..cols) sums, then a[0..K) the decoded operand row. */
	if (!(acc = scratch(m, cols + K)))
		return NPU_ENOMEM;
	a = acc + cols;
	for (j = 0; j < cols; j++) {
		acc[j].i = 0;
		if (fl)
			acc[j].f = 0.0f;
	}
	if (in->df == MTX_OS) {
		union mtx_val *at, *b;

		/* every OS result row needs all K rows of A^T and B: decode
		 * them once per instruction, at its first result row (all
		 * reads have completed by then: their deadlines come first) */
		if (!in->dec) {
			v = malloc((size_t)K * (in->m + in->n) * sizeof(*v));
			if (!v)
				return NPU_ENOMEM;
			for (k = 0; k < K; k++) {
				mtx_decode(in->in_type,
					   in->st[0].buf + (size_t)k * in->st[0].bytes,
					   in->m, v + (size_t)k * in->m);
				mtx_decode(in->in_type,
					   in->st[1].buf + (size_t)k * in->st[1].bytes,
					   in->n, v + (size_t)K * in->m +
						  (size_t)k * in->n);
			}
			in->dec = v;
		}
		at = in->dec;
		b = at + (size_t)K * in->m;
		for (k = 0; k < K; k++)
			mac_row(fl, acc, at[(size_t)k * in->m + row],
				b + (size_t)k * in->n, cols);
	} else {
		/* WS: A row x W (K x N); IS: B^T row x A^T (K x M) */
		union mtx_val *t = tile_dec(in->tile);

		if (!t)
			return NPU_ENOMEM;
		mtx_decode(in->in_type,
			   in->st[0].buf + (size_t)row * in->st[0].bytes, K, a);
		for (k = 0; k < K; k++)
			mac_row(fl, acc, a[k], t + (size_t)k * in->tile->cols,
				cols);
	}
	for (j = 0; j < cols; j++)
		mtx_put_le32(dst + 4 * j, fl ? num_f32_bits(acc[j].f)
					     : (uint32_t)acc[j].i);
	return 0;
}

const struct mtx_backend mtx_fast_backend = {
	.name = "fast",
	.row_values = fast_row_values,
};
