/*
 * npy.c - NumPy .npy reader and writer (see npy.h; format described in
 * docs/formats.md after NumPy's NEP 1 "A Simple File Format for NumPy
 * Arrays", numpy.lib.format).
 *
 * File layout:
 *   "\x93NUMPY" major minor                    8 bytes
 *   header length, little-endian               2 bytes (1.0) / 4 (2.0, 3.0)
 *   header: a Python dict literal              {'descr': '<f4',
 *           padded with spaces, ending '\n'     'fortran_order': False,
 *                                               'shape': (3, 4), }
 *   data: C-order elements                     to the end of the file
 *
 * Reading takes the prefix, the header, then exactly the data the header
 * declares (read_npy), and parses that in memory; every length is checked
 * against the real file size before anything is allocated for it, so a
 * hostile shape cannot make the reader allocate more than the file holds,
 * and a device or pipe (/dev/zero) is read no further than its header
 * declares, capped at NPY_STREAM_MAX.
 *
 * Element values go through util/num.h, the one place that defines
 * npusim's numerics: every source value is first made an exact double
 * (integers beyond 2^53 are pre-rounded to the target precision so that no
 * double rounding occurs), then num_encode rounds it once, to nearest even.
 * Integer targets are range-checked here instead of saturated, because a
 * tensor file that does not fit its declared type is a user error.
 *
 * Reading is a strict parser, not Python's literal_eval: it accepts what
 * numpy.save writes (and Python 2's "3L" dimensions), and rejects anything
 * else with the byte offset of the problem, so a malformed or hostile file
 * yields a message, never undefined behaviour.  Writing produces exactly
 * what numpy.save would for the same array (version 1.0, 64-byte aligned
 * data), so written files round-trip through NumPy unchanged.
 */
#include "npy.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "num.h"
#include "fsout.h"

/* ---- small helpers --------------------------------------------------------*/

/* For tensors built by npy_alloc or a load, whose shape product was
 * checked; no overflow test here. */
uint64_t npy_count(const struct npy *t)
{
	uint64_t n = 1;
	int i;

	for (i = 0; i < t->ndim; i++)
		n *= t->shape[i];
	return n;
}

/* Product of shape[0..ndim) into *count; 0, or -1 when it overflows. */
static int shape_count(const uint64_t *shape, int ndim, uint64_t *count)
{
	uint64_t n = 1;
	int i, zero = 0;

	/* A zero extent makes the product 0 whatever the others are, so the
	 * overflow test must not fire on (0, 2^40, 2^40). */
	for (i = 0; i < ndim; i++)
		if (shape[i] == 0)
			zero = 1;
	if (zero) {
		*count = 0;
		return 0;
	}
	for (i = 0; i < ndim; i++) {
		if (n > UINT64_MAX / shape[i])
			return -1;
		n *= shape[i];
	}
	*count = n;
	return 0;
}

/*
 * t's dtype, shape and nbytes for 'shape', its data NULL; 0, or
 * NPU_ERANGE (ndim or dtype out of range, or the size does not fit).
 * count <= 2^64 / 32 keeps count x 32 bits (the widest dtype) from
 * wrapping inside dtype_bytes; npy_alloc's +1 byte needs SIZE_MAX - 1.
 */
static int npy_header(struct npy *t, enum npu_dtype dtype, int ndim,
		      const uint64_t *shape)
{
	uint64_t count;
	int i;

	memset(t, 0, sizeof(*t));
	if (ndim < 0 || ndim > NPY_MAX_DIMS || (unsigned)dtype >= DT_N ||
	    shape_count(shape, ndim, &count) != 0 ||
	    count > UINT64_MAX / 32 || dtype_bytes(dtype, count) > SIZE_MAX - 1)
		return NPU_ERANGE;
	t->dtype = dtype;
	t->ndim = ndim;
	for (i = 0; i < ndim; i++)
		t->shape[i] = shape[i];
	t->nbytes = dtype_bytes(dtype, count);
	return 0;
}

int npy_alloc(struct npy *t, enum npu_dtype dtype, int ndim,
	      const uint64_t *shape)
{
	int rc = npy_header(t, dtype, ndim, shape);

	if (rc)
		return rc;
	/* +1 so that an empty tensor still owns a valid pointer. */
	t->data = calloc((size_t)t->nbytes + 1, 1);
	if (!t->data) {
		memset(t, 0, sizeof(*t));
		return NPU_ENOMEM;
	}
	return 0;
}

int npy_view(struct npy *t, enum npu_dtype dtype, int ndim,
	     const uint64_t *shape, void *data, uint64_t nbytes)
{
	if (npy_header(t, dtype, ndim, shape) || t->nbytes != nbytes) {
		memset(t, 0, sizeof(*t));
		return NPU_ERANGE;
	}
	t->data = data;
	return 0;
}

void npy_free(struct npy *t)
{
	free(t->data);
	memset(t, 0, sizeof(*t));
}

/* The descr written for each npusim dtype: the "written as" column of
 * npy.h's table.  int4 and int8 share '|i1'; the tensor table of the
 * program, not the file, says which one a tensor is. */
const char *npy_descr(enum npu_dtype t)
{
	static const char *const descr[DT_N] = {
		[DT_INT4] = "|i1",    /* one value per byte, -8..7 */
		[DT_INT8] = "|i1",
		[DT_INT16] = "<i2",
		[DT_INT32] = "<i4",
		[DT_FP8E4M3] = "|u1", /* raw OCP E4M3 codes */
		[DT_FP8E5M2] = "|u1", /* raw OCP E5M2 codes */
		[DT_FP16] = "<f2",
		[DT_BF16] = "<u2",    /* raw bfloat16 bits */
		[DT_FP32] = "<f4",
	};

	return (unsigned)t < DT_N ? descr[t] : "?";
}

/* Little- or big-endian unsigned load of 1..8 bytes (byte-wise: no
 * alignment or host byte-order assumption about the file buffer). */
static uint64_t load_uint(const uint8_t *p, int size, int big)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < size; i++)
		v |= (uint64_t)p[big ? size - 1 - i : i] << (8 * i);
	return v;
}

/* Little-endian store of size bytes (the header length field). */
static void store_le(uint8_t *p, uint64_t v, int size)
{
	int i;

	for (i = 0; i < size; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- float targets (rounding itself is util/num.c's) -----------------*/

/*
 * Stored mantissa bits of each float dtype, for int_as_double below:
 * OCP OFP8 rev 1.0 table 1 (E4M3, E5M2), IEEE 754-2008 binary16 and
 * binary32, bfloat16 = binary32's top half.
 */
static const int mant_bits[DT_N] = {
	[DT_FP8E4M3] = 3, [DT_FP8E5M2] = 2, [DT_FP16] = 10, [DT_BF16] = 7,
	[DT_FP32] = 23,
};

/*
 * An integer magnitude as a double that rounds to the same value of float
 * dtype t as the integer itself would.  Below 2^53 the conversion is exact.
 * Above it, converting to double would already round once and num_encode
 * would round again (double rounding can miss the nearest-even result), so
 * the integer is first rounded to t's mbits+1 significant bits, ties to
 * even, giving a double that t represents exactly.
 */
static double int_as_double(uint64_t mag, int neg, enum npu_dtype t)
{
	uint64_t q, rem, half;
	int bits = 0, s;
	double v;

	if (mag < ((uint64_t)1 << 53)) {
		v = (double)mag;
	} else {
		/* bits = position of the leading one + 1 (>= 54 here), so
		 * s >= 30 and the shifts below are well defined. */
		for (q = mag; q; q >>= 1)
			bits++;
		s = bits - (mant_bits[t] + 1);
		q = mag >> s;
		rem = mag & (((uint64_t)1 << s) - 1);
		half = (uint64_t)1 << (s - 1);
		/* Round half to even on the discarded bits; a carry out of
		 * q (all ones) is still exact in a double via ldexp. */
		if (rem > half || (rem == half && (q & 1)))
			q++;
		v = ldexp((double)q, s);
	}
	return neg ? -v : v;
}

/* ---- header parsing --------------------------------------------------------*/

/* The element type of a file, from its descr. */
struct src_type {
	char kind;  /* 'b' bool, 'i' signed, 'u' unsigned, 'f' float, 'V' raw */
	int size;   /* bytes per element */
	int big;    /* big-endian elements */
};

/* Everything the header says. */
struct npy_hdr {
	char descr[16];                /* as written, NUL-terminated */
	struct src_type st;            /* decoded descr */
	int fortran;                   /* fortran_order */
	int ndim;                      /* dimensions */
	uint64_t shape[NPY_MAX_DIMS];  /* extents */
	size_t data_off;               /* first data byte */
};

/* Cursor over the header text; offsets in messages are file offsets. */
struct hparse {
	const char *s;      /* header text */
	size_t i, n;        /* position, length */
	size_t base;        /* file offset of s[0] */
	const char *name;   /* file name for diagnostics */
	struct diag *d;     /* where errors go */
};

/* Header syntax error at the cursor; the offset is from the start of the
 * file, as a hex dump would show it. */
static int herr(struct hparse *p, const char *what)
{
	return diag_error(p->d, diag_at_file(p->name, 0, 0), NPU_ETENSOR,
			  "malformed .npy header at byte %zu: %s",
			  p->base + p->i, what);
}

/* Skip Python whitespace; numpy.save pads the header with spaces and
 * ends it with '\n'. */
static void hskip(struct hparse *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
			       p->s[p->i] == '\n' || p->s[p->i] == '\r'))
		p->i++;
}

/* Accept character c (after whitespace); 1 if it was there. */
static int haccept(struct hparse *p, char c)
{
	hskip(p);
	if (p->i < p->n && p->s[p->i] == c) {
		p->i++;
		return 1;
	}
	return 0;
}

/* A Python string literal ('...' or "...", no escapes) into buf. */
static int hstring(struct hparse *p, char *buf, size_t cap)
{
	char q;
	size_t k = 0;

	hskip(p);
	if (p->i >= p->n || (p->s[p->i] != '\'' && p->s[p->i] != '"'))
		return herr(p, "expected a quoted string");
	q = p->s[p->i++];
	/* Escapes and non-ASCII never occur in the keys or descrs NumPy
	 * writes; refusing them keeps the parser trivial and exact. */
	while (p->i < p->n && p->s[p->i] != q) {
		unsigned char c = (unsigned char)p->s[p->i];

		if (c == '\\' || c < 0x20 || c >= 0x7f)
			return herr(p, "unexpected character in string");
		if (k + 1 >= cap)
			return herr(p, "string too long");
		buf[k++] = (char)c;
		p->i++;
	}
	if (p->i >= p->n)
		return herr(p, "unterminated string");
	p->i++;
	buf[k] = '\0';
	return 0;
}

/* A Python identifier-like word (True, False). */
static int hword(struct hparse *p, char *buf, size_t cap)
{
	size_t k = 0;

	hskip(p);
	while (p->i < p->n && ((p->s[p->i] >= 'A' && p->s[p->i] <= 'Z') ||
			       (p->s[p->i] >= 'a' && p->s[p->i] <= 'z'))) {
		if (k + 1 >= cap)
			return herr(p, "word too long");
		buf[k++] = p->s[p->i++];
	}
	buf[k] = '\0';
	return k ? 0 : herr(p, "expected True or False");
}

/* The shape tuple: '(' [int {',' int} [',']] ')'. */
static int hshape(struct hparse *p, struct npy_hdr *h)
{
	hskip(p);
	if (!haccept(p, '('))
		return herr(p, "expected '(' starting the shape tuple");
	/* "()" is a 0-d scalar, "(3,)" one dimension; a trailing comma is
	 * allowed after any element, as Python allows. */
	h->ndim = 0;
	for (;;) {
		uint64_t v = 0;
		size_t start;

		if (haccept(p, ')'))
			return 0;
		hskip(p);
		start = p->i;
		while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
			unsigned dig = (unsigned)(p->s[p->i] - '0');

			if (v > (UINT64_MAX - dig) / 10)
				return herr(p, "dimension too large");
			v = v * 10 + dig;
			p->i++;
		}
		if (p->i == start)
			return herr(p, p->i < p->n && p->s[p->i] == '-'
					       ? "negative dimension"
					       : "expected a dimension or ')'");
		/* Python 2 NumPy wrote long integers as "3L". */
		if (p->i < p->n && p->s[p->i] == 'L')
			p->i++;
		if (h->ndim == NPY_MAX_DIMS)
			return diag_error(p->d, diag_at_file(p->name, 0, 0),
					  NPU_ETENSOR,
					  "tensor has more than %d dimensions, "
					  "the most npusim supports",
					  NPY_MAX_DIMS);
		h->shape[h->ndim++] = v;
		if (haccept(p, ','))
			continue;
		if (haccept(p, ')'))
			return 0;
		return herr(p, "expected ',' or ')' in the shape tuple");
	}
}

/* Decode a descr string into *st; message on failure. */
static int parse_descr(const char *descr, struct src_type *st,
		       const char *name, struct diag *d)
{
	const char *s = descr;
	char *end;
	long size;

	/* Byte order: '<' little, '|' not applicable (1 byte), '=' native
	 * (numpy.save never writes it; read as little-endian, whatever the
	 * host), '>' big, byte-swapped on load. */
	st->big = 0;
	if (*s == '<' || *s == '|' || *s == '=') {
		s++;
	} else if (*s == '>') {
		st->big = 1;
		s++;
	}
	st->kind = *s ? *s++ : '\0';
	errno = 0;
	size = strtol(s, &end, 10);
	if (end == s || *end || errno)
		size = 0;
	st->size = (int)size;
	switch (st->kind) {
	case 'b':
		if (size == 1)
			return 0;
		break;
	case 'i':
	case 'u':
		if (size == 1 || size == 2 || size == 4 || size == 8)
			return 0;
		break;
	case 'f':
		if (size == 2 || size == 4 || size == 8)
			return 0;
		break;
	case 'V': /* raw bytes: the ml_dtypes encodings of npy.h */
		if (size == 1 || size == 2)
			return 0;
		break;
	case 'O':
		return diag_error(d, diag_at_file(name, 0, 0), NPU_ETENSOR,
				  "dtype '%s' is a pickled object array; npusim "
				  "reads numeric arrays only", descr);
	case 'c':
		return diag_error(d, diag_at_file(name, 0, 0), NPU_ETENSOR,
				  "complex dtype '%s' is not supported", descr);
	default:
		break;
	}
	return diag_error(d, diag_at_file(name, 0, 0), NPU_ETENSOR,
			  "unsupported dtype '%s' (npusim reads bool, int8-64, "
			  "uint8-64, float16/32/64 and raw V1/V2)", descr);
}

/* Parse magic, version and the header dict of buf[0..n). */
static int parse_header(const uint8_t *buf, size_t n, const char *name,
			struct npy_hdr *h, struct diag *d)
{
	static const uint8_t magic[6] = { 0x93, 'N', 'U', 'M', 'P', 'Y' };
	struct hparse p;
	size_t hlen, hstart;
	int have_descr = 0, have_fortran = 0, have_shape = 0, r;

	memset(h, 0, sizeof(*h));
	if (n < 6 || memcmp(buf, magic, 6) != 0)
		return diag_error(d, diag_at_file(name, 0, 0), NPU_ETENSOR,
				  "not a .npy file (bad magic; expected "
				  "\\x93NUMPY)");
	if (n < 8)
		return diag_error(d, diag_at_file(name, 0, 0), NPU_ETENSOR,
				  "truncated .npy header (%zu bytes)", n);
	if (buf[7] != 0 || buf[6] < 1 || buf[6] > 3)
		return diag_error(d, diag_at_file(name, 0, 0), NPU_ETENSOR,
				  "unsupported .npy format version %u.%u "
				  "(npusim reads 1.0, 2.0 and 3.0)",
				  buf[6], buf[7]);
	/* 1.0 has a 16-bit header length, 2.0 and 3.0 a 32-bit one (3.0
	 * differs only in allowing UTF-8 in the header). */
	hstart = buf[6] == 1 ? 10 : 12;
	if (n < hstart)
		return diag_error(d, diag_at_file(name, 0, 0), NPU_ETENSOR,
				  "truncated .npy header (%zu bytes)", n);
	/* Checked against the bytes actually present before it is used as a
	 * length: a forged 4 GiB header length cannot make us read past the
	 * buffer. */
	hlen = (size_t)load_uint(buf + 8, (int)hstart - 8, 0);
	if (hlen > n - hstart)
		return diag_error(d, diag_at_file(name, 0, 0), NPU_ETENSOR,
				  "header length %zu runs past the end of the "
				  "file (%zu bytes)", hlen, n);
	h->data_off = hstart + hlen;

	p.s = (const char *)buf + hstart;
	p.i = 0;
	p.n = hlen;
	p.base = hstart;
	p.name = name;
	p.d = d;
	if (!haccept(&p, '{'))
		return herr(&p, "expected '{' starting the header dict");
	while (!haccept(&p, '}')) {
		char key[32], word[16];

		if ((r = hstring(&p, key, sizeof(key))) != 0)
			return r;
		if (!haccept(&p, ':'))
			return herr(&p, "expected ':' after a key");
		if (strcmp(key, "descr") == 0 && !have_descr) {
			have_descr = 1;
			hskip(&p);
			if (p.i < p.n && (p.s[p.i] == '[' || p.s[p.i] == '('))
				return diag_error(d, diag_at_file(name, 0, 0),
						  NPU_ETENSOR,
						  "structured dtypes (record "
						  "arrays) are not supported; "
						  "save a plain numeric array");
			if ((r = hstring(&p, h->descr, sizeof(h->descr))) != 0)
				return r;
		} else if (strcmp(key, "fortran_order") == 0 && !have_fortran) {
			have_fortran = 1;
			if ((r = hword(&p, word, sizeof(word))) != 0)
				return r;
			if (strcmp(word, "True") == 0)
				h->fortran = 1;
			else if (strcmp(word, "False") != 0)
				return herr(&p, "fortran_order must be True "
						"or False");
		} else if (strcmp(key, "shape") == 0 && !have_shape) {
			have_shape = 1;
			if ((r = hshape(&p, h)) != 0)
				return r;
		} else if (strcmp(key, "descr") == 0 ||
			   strcmp(key, "fortran_order") == 0 ||
			   strcmp(key, "shape") == 0) {
			/* A Python dict would keep the last value silently;
			 * an ambiguous file is refused instead. */
			return herr(&p, "duplicate key");
		} else {
			return diag_error(d, diag_at_file(name, 0, 0),
					  NPU_ETENSOR,
					  "unknown .npy header key '%s' "
					  "(expected descr, fortran_order, "
					  "shape)", key);
		}
		if (haccept(&p, ','))
			continue;
		if (haccept(&p, '}'))
			break;
		return herr(&p, "expected ',' or '}' in the header dict");
	}
	hskip(&p);
	if (p.i != p.n)
		return herr(&p, "unexpected text after the header dict");
	if (!have_descr || !have_fortran || !have_shape)
		return diag_error(d, diag_at_file(name, 0, 0), NPU_ETENSOR,
				  "header lacks the '%s' key",
				  !have_descr ? "descr"
				  : !have_fortran ? "fortran_order" : "shape");
	if (h->fortran)
		return diag_error(d, diag_at_file(name, 0, 0), NPU_ETENSOR,
				  "fortran_order is True: npusim reads C-order "
				  "arrays only (save "
				  "np.ascontiguousarray(a) instead)");
	return parse_descr(h->descr, &h->st, name, d);
}

/* ---- conversion -----------------------------------------------------------*/

/* "[1, 2]" for flat index i of the shape in h (messages): C order, so the
 * last dimension varies fastest and is peeled off first. */
static void fmt_index(char *buf, size_t cap, const struct npy_hdr *h,
		      uint64_t i)
{
	uint64_t idx[NPY_MAX_DIMS];
	size_t k = 0;
	int j;

	for (j = h->ndim - 1; j >= 0; j--) {
		idx[j] = h->shape[j] ? i % h->shape[j] : 0;
		i = h->shape[j] ? i / h->shape[j] : 0;
	}
	k += (size_t)snprintf(buf + k, cap - k, "[");
	for (j = 0; j < h->ndim && k < cap; j++)
		k += (size_t)snprintf(buf + k, cap - k, "%s%llu", j ? ", " : "",
				      (unsigned long long)idx[j]);
	if (k < cap)
		snprintf(buf + k, cap - k, "]");
}

/* One source element, as the exact value it denotes. */
struct val {
	int is_float;  /* f is valid; else (neg, mag) is */
	int neg;       /* integer is negative */
	uint64_t mag;  /* integer magnitude */
	double f;      /* float value */
};

/* Decode one file element (any supported descr) into its exact value:
 * integers as sign and magnitude, so uint64 and int64 both fit without
 * loss; floats as a double, which holds f2, f4 and f8 exactly. */
static struct val fetch(const uint8_t *p, const struct src_type *st)
{
	struct val v = { 0, 0, 0, 0.0 };
	uint64_t raw = load_uint(p, st->size, st->big);

	switch (st->kind) {
	case 'b':
		v.mag = raw != 0;
		break;
	case 'i':
		/* Sign-extend from size bytes. */
		if (st->size < 8 && (raw >> (8 * st->size - 1)) & 1)
			raw |= ~(uint64_t)0 << (8 * st->size);
		if ((int64_t)raw < 0) {
			v.neg = 1;
			v.mag = ~raw + 1; /* well defined for INT64_MIN too */
		} else {
			v.mag = raw;
		}
		break;
	case 'u':
		v.mag = raw;
		break;
	default: /* 'f' */
		v.is_float = 1;
		if (st->size == 2) {
			v.f = num_decode(DT_FP16, (uint32_t)raw);
		} else if (st->size == 4) {
			uint32_t b = (uint32_t)raw;
			float f;

			memcpy(&f, &b, 4);
			v.f = f;
		} else {
			memcpy(&v.f, &raw, 8);
		}
		break;
	}
	return v;
}

/* Natural npusim dtype of a file type, or -1: the dtype npy_read gives a
 * file when the caller has no declared dtype.  '|i1' maps to int8 (never
 * int4) and u2/V2 to bf16, inverting npy_descr where it is unambiguous. */
static int natural_dtype(const struct src_type *st)
{
	if (st->kind == 'i' && st->size == 1)
		return DT_INT8;
	if (st->kind == 'i' && st->size == 2)
		return DT_INT16;
	if (st->kind == 'i' && st->size == 4)
		return DT_INT32;
	if (st->kind == 'f' && st->size == 2)
		return DT_FP16;
	if (st->kind == 'f' && st->size == 4)
		return DT_FP32;
	if ((st->kind == 'u' || st->kind == 'V') && st->size == 2)
		return DT_BF16;
	return -1;
}

/* How a file type maps onto the wanted dtype: CONV_COPY the same layout
 * (bytes as they are, byte-swapped if big-endian); CONV_RAW raw codes of
 * a type NumPy lacks (bf16 bits, fp8 codes, int4 nibbles); CONV_VALUE
 * convert each element's value, exactly or with one rounding. */
enum conv { CONV_COPY, CONV_RAW, CONV_VALUE };

/* Choose the conversion for the whole file (one decision, not one per
 * element); refuses raw codes that do not fit the wanted dtype. */
static int plan(const struct npy_hdr *h, enum npu_dtype want,
		const char *name, struct diag *d, enum conv *c)
{
	const struct src_type *st = &h->st;

	/* Same layout: copy the bytes (keeps NaN payloads bit for bit). */
	if (natural_dtype(st) == (int)want && st->kind != 'u' &&
	    st->kind != 'V') {
		*c = CONV_COPY;
		return 0;
	}
	/* Raw encodings of types NumPy lacks (npy.h's table). */
	if (want == DT_BF16 && st->size == 2 &&
	    (st->kind == 'u' || st->kind == 'V')) {
		*c = CONV_RAW;
		return 0;
	}
	if ((want == DT_FP8E4M3 || want == DT_FP8E5M2) && st->size == 1 &&
	    (st->kind == 'u' || st->kind == 'V')) {
		*c = CONV_RAW;
		return 0;
	}
	if (want == DT_INT4 && st->kind == 'V') {
		*c = CONV_RAW;
		return 0;
	}
	if (st->kind == 'V')
		return diag_error(d, diag_at_file(name, 0, 0), NPU_ETENSOR,
				  "dtype '%s' holds raw codes of a type NumPy "
				  "lacks; it can be loaded as %s, not as %s",
				  h->descr,
				  st->size == 2 ? "bf16" : "int4 or fp8",
				  dtype_name(want));
	*c = CONV_VALUE;
	return 0;
}

/* Convert one value to an integer dtype; message on failure. */
static int conv_int(struct val v, enum npu_dtype want, uint8_t *out,
		    uint64_t i, const struct npy_hdr *h, const char *name,
		    struct diag *d)
{
	/* Two's complement range of the target: int4 -8..7 up to int32. */
	int64_t hi = ((int64_t)1 << (dtype_bits(want) - 1)) - 1, lo = -hi - 1;
	char at[160];
	int64_t x;

	if (v.is_float) {
		/* Written as !(in range) so that NaN fails too; lo and hi
		 * are exact doubles for every integer dtype (<= 32 bits). */
		if (!(v.f >= (double)lo && v.f <= (double)hi) ||
		    v.f != trunc(v.f)) {
			fmt_index(at, sizeof(at), h, i);
			return diag_error(d, diag_at_file(name, 0, 0),
					  NPU_ETENSOR,
					  "element %s = %.9g is not %s: %s "
					  "tensors take integral values in "
					  "%lld..%lld", at, v.f,
					  v.f == trunc(v.f) ? "in range"
							    : "an integer",
					  dtype_name(want), (long long)lo,
					  (long long)hi);
		}
		x = (int64_t)v.f;
	} else {
		if (v.neg ? v.mag > (uint64_t)hi + 1 : v.mag > (uint64_t)hi) {
			fmt_index(at, sizeof(at), h, i);
			return diag_error(d, diag_at_file(name, 0, 0),
					  NPU_ETENSOR,
					  "element %s = %s%llu does not fit %s "
					  "(%lld..%lld)", at, v.neg ? "-" : "",
					  (unsigned long long)v.mag,
					  dtype_name(want), (long long)lo,
					  (long long)hi);
		}
		x = v.neg ? (int64_t)(0 - v.mag) : (int64_t)v.mag;
	}
	num_set_bits(want, out, i, (uint32_t)(uint64_t)x);
	return 0;
}

/*
 * Convert one value to a float dtype, rounding to nearest even.  An
 * overflow is an error rather than the infinity (or E4M3 NaN) that IEEE
 * rounding would give: a tensor silently full of inf is worse than a
 * message.  num_encode with NUM_OVF_IEEE reports overflow as a non-finite
 * result from a finite input.
 */
static int conv_float(struct val v, enum npu_dtype want, uint8_t *out,
		      uint64_t i, const struct npy_hdr *h, const char *name,
		      struct diag *d)
{
	/* A NaN input stays NaN (E4M3 has one NaN per sign, so its payload
	 * is lost: num.h); only a finite input turning non-finite is an
	 * overflow. */
	double x = v.is_float ? v.f : int_as_double(v.mag, v.neg, want);
	uint32_t bits = num_encode(want, x, NUM_OVF_IEEE);
	double back = num_decode(want, bits);
	char at[160];

	if (!isnan(x) && (isnan(back) || (isinf(back) && !isinf(x)))) {
		fmt_index(at, sizeof(at), h, i);
		if (isinf(x))
			return diag_error(d, diag_at_file(name, 0, 0),
					  NPU_ETENSOR,
					  "element %s is %s, which %s cannot "
					  "represent", at,
					  x > 0 ? "+inf" : "-inf",
					  dtype_name(want));
		return diag_error(d, diag_at_file(name, 0, 0), NPU_ETENSOR,
				  "element %s = %.9g overflows %s (largest "
				  "finite value %.9g)", at, x, dtype_name(want),
				  num_max(want));
	}
	num_set_bits(want, out, i, bits);
	return 0;
}

/*
 * The loader.  With steal set, buf is a malloc'ed whole-file buffer that
 * may become out->data (no copy for files already in npusim layout); the
 * caller must then not free it if *stolen is set.
 */
static int load(uint8_t *buf, size_t n, const char *name, int want_in,
		struct npy *out, struct diag *d, int steal, int *stolen)
{
	struct npy_hdr h;
	const uint8_t *src;
	uint64_t count, need, i, nbytes;
	enum npu_dtype want;
	enum conv c = CONV_VALUE;
	uint8_t *dst;
	int r;

	memset(out, 0, sizeof(*out));
	if (stolen)
		*stolen = 0;
	if ((r = parse_header(buf, n, name, &h, d)) != 0)
		return r;
	/* want_in < 0: npy_read, the file decides (its natural dtype). */
	if (want_in < 0) {
		int nat = natural_dtype(&h.st);

		if (nat < 0)
			return diag_error(d, diag_at_file(name, 0, 0),
					  NPU_ETENSOR,
					  "dtype '%s' does not name an npusim "
					  "type by itself; load it with the "
					  "tensor's declared dtype", h.descr);
		want = (enum npu_dtype)nat;
	} else if (want_in >= DT_N) {
		return diag_error(d, diag_at_file(name, 0, 0), NPU_EINTERNAL,
				  "bad dtype %d requested", want_in);
	} else {
		want = (enum npu_dtype)want_in;
	}
	if ((r = plan(&h, want, name, d, &c)) != 0)
		return r;
	/* count <= 2^64 / 8 keeps count x size (at most 8 bytes) exact; the
	 * size test after it then bounds everything by the file's length. */
	if (shape_count(h.shape, h.ndim, &count) != 0 ||
	    count > UINT64_MAX / 8)
		return diag_error(d, diag_at_file(name, 0, 0), NPU_ETENSOR,
				  "shape has too many elements (the product "
				  "overflows 64 bits)");
	need = count * (uint64_t)h.st.size;
	if (n - h.data_off < need)
		return diag_error(d, diag_at_file(name, 0, 0), NPU_ETENSOR,
				  "data is %zu bytes but the shape needs %llu "
				  "(%llu elements of '%s'); file truncated?",
				  n - h.data_off, (unsigned long long)need,
				  (unsigned long long)count, h.descr);
	/* Trailing bytes mean the shape or dtype is not what the writer
	 * meant: refused rather than ignored. */
	if (n - h.data_off > need)
		return diag_error(d, diag_at_file(name, 0, 0), NPU_ETENSOR,
				  "%llu bytes of unexpected data after the "
				  "tensor (%llu elements of '%s')",
				  (unsigned long long)(n - h.data_off - need),
				  (unsigned long long)count, h.descr);
	/* From here count <= n, so no size below can overflow. */
	nbytes = dtype_bytes(want, count);
	src = buf + h.data_off;

	if (c == CONV_COPY && !h.st.big && steal) {
		/* Slide the data to the front of the file buffer and keep it. */
		/* +1 as in npy_alloc: an empty tensor keeps a valid pointer
		 * (realloc(p, 0) may return NULL). */
		memmove(buf, src, (size_t)need);
		dst = realloc(buf, (size_t)need + 1);
		*stolen = 1;
		if (!dst)
			dst = buf; /* shrinking failed: keep the larger block */
	} else {
		dst = calloc((size_t)nbytes + 1, 1);
		if (!dst)
			return diag_error(d, diag_at_file(name, 0, 0),
					  NPU_ENOMEM, "out of memory for %llu "
					  "bytes of tensor data",
					  (unsigned long long)nbytes);
		for (i = 0; i < count; i++) {
			const uint8_t *p = src + i * (uint64_t)h.st.size;

			r = 0;
			if (c == CONV_COPY || c == CONV_RAW) {
				uint64_t raw = load_uint(p, h.st.size,
							 h.st.big);

				/* int4 from '|V1' keeps the low nibble. */
				num_set_bits(want, dst, i, (uint32_t)raw);
			} else if (dtype_is_float(want)) {
				r = conv_float(fetch(p, &h.st), want, dst, i,
					       &h, name, d);
			} else {
				r = conv_int(fetch(p, &h.st), want, dst, i, &h,
					     name, d);
			}
			if (r != 0) {
				free(dst);
				return r;
			}
		}
	}
	out->dtype = want;
	out->ndim = h.ndim;
	memcpy(out->shape, h.shape, sizeof(out->shape));
	out->data = dst;
	out->nbytes = nbytes;
	return 0;
}

/* From a caller's buffer (the unit tests): steal = 0, so the buffer is
 * only read and the cast away from const is never written through. */
int npy_load_mem(const uint8_t *buf, size_t n, const char *name, int want,
		 struct npy *out, struct diag *d)
{
	return load((uint8_t *)(uintptr_t)buf, n, name, want, out, d, 0, NULL);
}

/*
 * Most bytes read from a pipe or a device: a stream has no size to check
 * the header against, so what it may declare is capped (4 GiB, beyond any
 * simulated memory's tensor; a larger tensor comes from a regular file).
 * The header itself is capped at 1 MiB for every input: numpy.save writes
 * under 256 bytes for npusim's shapes, and NumPy refuses over 10000.
 */
#define NPY_STREAM_MAX ((uint64_t)1 << 32)
#define NPY_HEADER_MAX ((size_t)1 << 20)

/* Grow *b (capacity *cap, *len bytes used) by reading until *len ==
 * target or EOF.  The buffer doubles as bytes arrive, so a stream that
 * declares much and sends little costs what it sent.  0 or NPU_ENOMEM. */
static int read_upto(FILE *fp, uint8_t **b, size_t *cap, size_t *len,
		     size_t target)
{
	while (*len < target) {
		size_t got;

		if (*len == *cap) {
			size_t nc = *cap > target / 2 ? target : *cap * 2;
			uint8_t *nb = realloc(*b, nc + 1);

			if (!nb)
				return NPU_ENOMEM;
			*b = nb;
			*cap = nc;
		}
		got = fread(*b + *len, 1, *cap - *len, fp);
		*len += got;
		if (got == 0)
			break;  /* EOF or an error (ferror tells) */
	}
	return 0;
}

/*
 * Read a .npy file: the fixed prefix, the header it announces, then
 * exactly the data the header declares (one byte more from a stream, to
 * see that it ends).  A regular file's sizes are checked against its real
 * size before anything is allocated for them, so neither a forged header
 * nor /dev/zero can make the reader consume memory beyond the file.  What
 * is malformed is left for load() to report with its usual message.
 */
static int read_npy(const char *path, uint8_t **buf, size_t *n,
		    struct diag *d)
{
	FILE *fp = fopen(path, "rb");
	struct stat sb;
	struct npy_hdr h;
	struct diag quiet;
	uint8_t *b = NULL;
	size_t cap = 64, len = 0, hstart, hlen, target;
	uint64_t size = 0, count, need;
	int regular, r = 0;

	*buf = NULL;
	*n = 0;
	if (!fp)
		return diag_error(d, diag_at_file(path, 0, 0), NPU_EIO,
				  "cannot open: %s", strerror(errno));
	regular = fstat(fileno(fp), &sb) == 0 && S_ISREG(sb.st_mode);
	if (regular)
		size = (uint64_t)sb.st_size;
	if (!(b = malloc(cap + 1)))
		goto nomem;
	/* magic, version, header length */
	if (read_upto(fp, &b, &cap, &len, 12))
		goto nomem;
	if (ferror(fp))
		goto ioerr;
	if (len < 10 || memcmp(b, "\x93NUMPY", 6) != 0 || b[7] != 0 ||
	    b[6] < 1 || b[6] > 3)
		goto done;  /* load() says what is wrong */
	hstart = b[6] == 1 ? 10 : 12;
	if (len < hstart)
		goto done;
	hlen = (size_t)load_uint(b + 8, (int)hstart - 8, 0);
	if (hlen > NPY_HEADER_MAX) {
		r = diag_error(d, diag_at_file(path, 0, 0), NPU_ETENSOR,
			       "header length %zu is beyond any .npy header "
			       "(at most %zu bytes)", hlen, NPY_HEADER_MAX);
		goto out;
	}
	if (regular && hlen > size - hstart)
		target = (size_t)size;  /* load() reports the short header */
	else
		target = hstart + hlen;
	if (read_upto(fp, &b, &cap, &len, target))
		goto nomem;
	if (ferror(fp))
		goto ioerr;
	/* The header's own errors are load()'s to report. */
	diag_init(&quiet, NULL);
	if (len < target || parse_header(b, len, path, &h, &quiet) != 0 ||
	    shape_count(h.shape, h.ndim, &count) != 0 ||
	    count > UINT64_MAX / 8)
		goto done;
	need = count * (uint64_t)h.st.size;
	if (regular) {
		if (size - h.data_off > need) {
			r = diag_error(d, diag_at_file(path, 0, 0), NPU_ETENSOR,
				       "%llu bytes of unexpected data after the "
				       "tensor (%llu elements of '%s')",
				       (unsigned long long)(size - h.data_off - need),
				       (unsigned long long)count, h.descr);
			goto out;
		}
		/* A short file: read what there is, load() reports it. */
		target = (size_t)size;
	} else {
		if (need > NPY_STREAM_MAX) {
			r = diag_error(d, diag_at_file(path, 0, 0), NPU_ETENSOR,
				       "the header declares %llu bytes of data; "
				       "from a pipe or device npusim reads at "
				       "most %llu (use a regular file)",
				       (unsigned long long)need,
				       (unsigned long long)NPY_STREAM_MAX);
			goto out;
		}
		target = h.data_off + (size_t)need + 1;
	}
	if (read_upto(fp, &b, &cap, &len, target))
		goto nomem;
	if (ferror(fp))
		goto ioerr;
	if (!regular && len == target) {
		r = diag_error(d, diag_at_file(path, 0, 0), NPU_ETENSOR,
			       "unexpected data after the tensor (%llu elements "
			       "of '%s'): the input does not end there",
			       (unsigned long long)count, h.descr);
		goto out;
	}
done:
	fclose(fp);
	*buf = b;
	*n = len;
	return 0;
nomem:
	r = diag_error(d, diag_at_file(path, 0, 0), NPU_ENOMEM,
		       "out of memory reading the file");
	goto out;
ioerr:
	r = diag_error(d, diag_at_file(path, 0, 0), NPU_EIO, "cannot read: %s",
		       strerror(errno));
out:
	fclose(fp);
	free(b);
	return r;
}

static int load_file(const char *path, int want, struct npy *out,
		     struct diag *d)
{
	uint8_t *buf;
	size_t n;
	int r, stolen = 0;

	memset(out, 0, sizeof(*out));
	if ((r = read_npy(path, &buf, &n, d)) != 0)
		return r;
	r = load(buf, n, path, want, out, d, 1, &stolen);
	if (!stolen)
		free(buf);
	return r;
}

int npy_load_as(const char *path, enum npu_dtype want, struct npy *out,
		struct diag *d)
{
	return load_file(path, (int)want, out, d);
}

int npy_read(const char *path, struct npy *out, struct diag *d)
{
	return load_file(path, -1, out, d);
}

/* ---- writing ----------------------------------------------------------------*/

/*
 * The header (magic through '\n') for t into hdr; returns its length or 0
 * when t is inconsistent.  NumPy pads the header so the data starts on a
 * 64-byte boundary (numpy.lib.format ARRAY_ALIGN); we do the same.
 */
static size_t make_header(const struct npy *t, char *hdr, size_t cap)
{
	char dict[64 + NPY_MAX_DIMS * 24];
	size_t k, len, pre, total;
	uint64_t count;
	int i;

	if ((unsigned)t->dtype >= DT_N || t->ndim < 0 ||
	    t->ndim > NPY_MAX_DIMS ||
	    shape_count(t->shape, t->ndim, &count) != 0 ||
	    count > UINT64_MAX / 32 ||
	    t->nbytes != dtype_bytes(t->dtype, count))
		return 0;
	k = (size_t)snprintf(dict, sizeof(dict),
			     "{'descr': '%s', 'fortran_order': False, "
			     "'shape': (", npy_descr(t->dtype));
	for (i = 0; i < t->ndim; i++)
		k += (size_t)snprintf(dict + k, sizeof(dict) - k, "%s%llu",
				      i ? ", " : "",
				      (unsigned long long)t->shape[i]);
	/* A one-element tuple needs its comma: (3,). */
	k += (size_t)snprintf(dict + k, sizeof(dict) - k, "%s), }",
			      t->ndim == 1 ? "," : "");
	len = k + 1; /* + '\n' */
	/*
	 * Version 2.0 exists for headers of 64 KiB and more (NumPy's many-
	 * field record dtypes); with at most NPY_MAX_DIMS dimensions an
	 * npusim header is under 256 bytes, so 1.0 always suffices.
	 */
	/* 10 = magic (6) + version (2) + 16-bit header length (2); the
	 * length stored counts the padding and the '\n'. */
	pre = 10;
	total = (pre + len + 63) / 64 * 64;
	if (total > cap)
		return 0;
	memcpy(hdr, "\x93NUMPY", 6);
	hdr[6] = 1;
	hdr[7] = 0;
	store_le((uint8_t *)hdr + 8, total - pre, 2);
	memcpy(hdr + pre, dict, k);
	memset(hdr + pre + k, ' ', total - pre - k - 1);
	hdr[total - 1] = '\n';
	return total;
}

/* int4 storage -> one sign-extended value per byte: NumPy has no int4, so
 * a file carries int4 as '|i1' values -8..7 (npy.h), readable anywhere. */
static void unpack_int4(const uint8_t *src, uint8_t *dst, uint64_t count)
{
	uint64_t i;

	for (i = 0; i < count; i++) {
		uint8_t nib = (uint8_t)((src[i / 2] >> (i & 1 ? 4 : 0)) & 0xf);

		dst[i] = (uint8_t)(nib & 0x8 ? nib | 0xf0 : nib);
	}
}

/* The whole file image in memory (the unit tests' round trips); the same
 * bytes npy_write puts in a file. */
int npy_encode(const struct npy *t, uint8_t **buf, size_t *n)
{
	char hdr[1024];
	size_t hl = make_header(t, hdr, sizeof(hdr));
	uint64_t count, body;
	uint8_t *b;

	*buf = NULL;
	*n = 0;
	if (!hl)
		return NPU_ERANGE;
	count = npy_count(t);
	body = t->dtype == DT_INT4 ? count : t->nbytes;
	if (body > SIZE_MAX - hl - 1)
		return NPU_ERANGE;
	b = malloc(hl + (size_t)body + 1);
	if (!b)
		return NPU_ENOMEM;
	memcpy(b, hdr, hl);
	if (t->dtype == DT_INT4)
		unpack_int4(t->data, b + hl, count);
	else if (body)
		memcpy(b + hl, t->data, (size_t)body);
	*buf = b;
	*n = hl + (size_t)body;
	return 0;
}

int npy_write(const char *path, const struct npy *t, struct diag *d)
{
	char hdr[1024];
	size_t hl = make_header(t, hdr, sizeof(hdr));
	struct fsout o;
	int r;

	if (!hl)
		return diag_error(d, diag_at_file(path, 0, 0), NPU_EINTERNAL,
				  "inconsistent tensor (dtype %d, %d dims, "
				  "%llu bytes)", (int)t->dtype, t->ndim,
				  (unsigned long long)t->nbytes);
	if ((r = fsout_open(&o, path, d)) != 0)
		return r;
	/* fwrite results are not checked one by one: the stream's error flag
	 * is sticky, and fsout_commit refuses to rename a file with an error
	 * (the old file stays). */
	fwrite(hdr, 1, hl, o.fp);
	if (t->dtype == DT_INT4) {
		/* Unpack in chunks so a large tensor needs no second copy. */
		uint8_t chunk[4096];
		uint64_t count = npy_count(t), i;

		/* The step (4096) is even, so every chunk starts on a whole
		 * byte of packed storage (two nibbles per byte). */
		for (i = 0; i < count; i += sizeof(chunk)) {
			uint64_t m = count - i < sizeof(chunk)
					     ? count - i
					     : sizeof(chunk);

			unpack_int4(t->data + i / 2, chunk, m);
			fwrite(chunk, 1, (size_t)m, o.fp);
		}
	} else if (t->nbytes) {
		fwrite(t->data, 1, (size_t)t->nbytes, o.fp);
	}
	return fsout_commit(&o, d);
}
