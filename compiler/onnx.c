/*
 * onnx.c - the ONNX importer (onnx.h).
 *
 * protobuf-c unpacks the ModelProto with the schema compiled from
 * python3-onnx's onnx.proto (the Makefile's $(BUILD)/gen/onnx.pb-c.[ch]);
 * this file checks what it got and builds the layer graph:
 *
 *   bytes --wire_scan--> framing known good (or: error at byte N)
 *         --protobuf-c--> Onnx__ModelProto
 *         --check_model--> IR version, default-domain opset 11..17
 *         --import_graph--> initializers, inputs, nodes (attributes by
 *                           attr_rules[]), outputs, value_info
 *
 * Operators are ops.def's rows by their ONNX names; the attributes each
 * takes, in which opsets, and what becomes of them are attr_rules[] below.
 * Anything the graph cannot hold exactly is an error naming the node or
 * tensor and what is supported: nothing is skipped silently, except the
 * attributes marked AK_IGNORE, which cannot change an inference result
 * (docs/models.md, "ONNX import", lists them with the reasons).
 */
#include "onnx.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "onnx.pb-c.h"

/* raw_data is little-endian (onnx.proto) and graph tensors hold
 * little-endian arrays: both are copied as host arrays. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "onnx.c assumes a little-endian host"
#endif

/* IR versions whose ModelProto this importer understands: 3 introduced
 * opset_import; 10 is the newest at the time of writing (onnx 1.16). */
#define ONNX_IR_MIN 3
#define ONNX_IR_MAX 10

/* Protobuf caps messages at 2 GiB (protobuf-c refuses longer fields);
 * larger models keep their weights as external data. */
#define ONNX_FILE_MAX ((size_t)INT_MAX)

/* Nesting of messages that wire_scan admits (see there). */
#define WIRE_MAX_DEPTH 64

#define AT(x) ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__##x

/* ops.def once more, for what the importer needs beyond the names. */
static const struct {
	const char *name;       /* ONNX op_type */
	int min_in, max_in;     /* inputs (trailing optional ones) */
	int n_out;              /* outputs, -1: any number */
} op_rows[G_N_OPS] = {
#define GOP(id, onnx, min_in, max_in, n_out, infer, fold, map, doc) \
	[G_##id] = { onnx, min_in, max_in, n_out },
#include "ops.def"
#undef GOP
};

/* State of one import. */
struct pb_heap;

struct imp {
	struct graph *g;
	struct diag *d;
	const char *label;      /* file name in messages */
	int opset;              /* the model's default-domain opset */
	int cur;                /* graph node being imported, or -1 */
	struct pb_heap *heap;   /* protobuf-c's large blocks, or NULL */
};

/*
 * protobuf-c allocates through this heap: malloc and free, with every
 * block of PB_BIG bytes or more on record (pointer and size) while it
 * lives.  A tensor's raw_data that is such a block, exactly, is handed to
 * the graph instead of copied (pb_take), and the message forgets it: a
 * 100 MB model's weights are then neither copied nor held twice.  Smaller
 * blocks, or a raw_data that is not a whole block of its own, are copied
 * as before, so nothing depends on how protobuf-c lays out its fields.
 */
#define PB_BIG 65536

struct pb_heap {
	void **p;               /* blocks on record */
	size_t *n;              /* their sizes */
	size_t cnt, cap;
	int oom;                /* the record could not grow */
};

static void *pb_alloc(void *ctx, size_t size)
{
	struct pb_heap *h = ctx;
	void *p = malloc(size ? size : 1);

	if (!p || size < PB_BIG)
		return p;
	if (h->cnt == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64;
		void **np = realloc(h->p, cap * sizeof(*np));
		size_t *nn = np ? realloc(h->n, cap * sizeof(*nn)) : NULL;

		if (np)
			h->p = np;
		if (!nn) {
			h->oom = 1;     /* unrecorded: it is copied instead */
			return p;
		}
		h->n = nn;
		h->cap = cap;
	}
	h->p[h->cnt] = p;
	h->n[h->cnt++] = size;
	return p;
}

/* Drop block p from the record (the last entry fills its place). */
static int pb_forget(struct pb_heap *h, const void *p, size_t size)
{
	for (size_t i = h->cnt; i-- > 0;)
		if (h->p[i] == p && (size == SIZE_MAX || h->n[i] == size)) {
			h->cnt--;
			h->p[i] = h->p[h->cnt];
			h->n[i] = h->n[h->cnt];
			return 1;
		}
	return 0;
}

static void pb_free(void *ctx, void *p)
{
	if (p)
		(void)pb_forget(ctx, p, SIZE_MAX);
	free(p);
}

/* 1 if [p, p + size) is a whole block on record: it is now the caller's
 * (free() releases it) and off the record. */
static int pb_take(struct pb_heap *h, const void *p, size_t size)
{
	return h && size >= PB_BIG && pb_forget(h, p, size);
}

static int imp_err(struct imp *im, int err, const char *fmt, ...)
	NPU_PRINTF(3, 4);

static int imp_err(struct imp *im, int err, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return diag_error(im->d, diag_at_file(im->label, 0, 0), err, "%s",
			  msg);
}

static const char *str(const char *s)
{
	return s ? s : "";
}

/* ONNX's own name of a TensorProto.DataType value ("DOUBLE"). */
static const char *onnx_dtype_name(int t)
{
	const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(
		&onnx__tensor_proto__data_type__descriptor, t);
	return v ? v->name : "UNDEFINED";
}

/* ONNX's name of an AttributeProto.AttributeType value ("INTS"). */
static const char *onnx_attr_type_name(int t)
{
	const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(
		&onnx__attribute_proto__attribute_type__descriptor, t);
	return v ? v->name : "UNDEFINED";
}

/* "float32, uint8, ..." - the dtypes a graph tensor can have. */
static const char *dtype_list(char *buf, size_t n)
{
	size_t k = 0;

	buf[0] = 0;
	for (int t = 1; t < G_DT_N && k < n; t++)
		k += (size_t)snprintf(buf + k, n - k, "%s%s", t > 1 ? ", " : "",
				      g_dtype_name((enum g_dtype)t));
	return buf;
}

/* "[1,3,224,224]" */
static const char *dims_str(const int64_t *dim, size_t rank, char *buf,
			    size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "[");
	for (size_t i = 0; i < rank && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? "," : "",
				      (long long)dim[i]);
	if (k < n)
		snprintf(buf + k, n - k, "]");
	return buf;
}

/* ---- locating a framing error ------------------------------------------ */

/*
 * protobuf-c's unpack returns NULL for malformed input without saying
 * where, and it unpacks nested messages by recursion with no depth limit
 * (each level costs it about a kilobyte of stack, and a level costs an
 * input two bytes, so a small crafted file would exhaust the stack).  So
 * before unpacking, this scan walks the framing of the same bytes - tags,
 * varints, lengths, and the nested messages of the fields that the schema
 * (protobuf-c's descriptors of onnx.proto) says are messages - checking
 * what protobuf-c checks, and stops at the first bad byte with its offset,
 * or at nesting deeper than WIRE_MAX_DEPTH (real models nest about 5
 * levels, 4 more per subgraph).  It decodes no values: the model itself
 * is read from protobuf-c's result only.
 */
struct wire_err {
	size_t at;              /* file offset of the first bad byte */
	const char *in;         /* message type it is in ("NodeProto") */
	const char *field;      /* the field being read, NULL before its tag */
	int known_top;          /* a known ModelProto field came before it */
	char why[192];
};

static int wire_fail(struct wire_err *e, size_t at,
		     const ProtobufCMessageDescriptor *desc,
		     const ProtobufCFieldDescriptor *fd, const char *fmt, ...)
	NPU_PRINTF(5, 6);

static int wire_fail(struct wire_err *e, size_t at,
		     const ProtobufCMessageDescriptor *desc,
		     const ProtobufCFieldDescriptor *fd, const char *fmt, ...)
{
	va_list ap;

	e->at = at;
	e->in = desc->short_name;
	e->field = fd ? fd->name : NULL;
	va_start(ap, fmt);
	vsnprintf(e->why, sizeof e->why, fmt, ap);
	va_end(ap);
	return -1;
}

/* Bytes of the varint at p (at most max of the avail bytes there), or 0
 * when none ends within them; its value in *v. */
static size_t wire_varint(const uint8_t *p, size_t avail, size_t max,
			  uint64_t *v)
{
	size_t lim = avail < max ? avail : max;
	uint64_t x = 0;

	for (size_t i = 0; i < lim; i++) {
		x |= (uint64_t)(p[i] & 0x7f) << (7 * i);  /* max <= 10 */
		if (!(p[i] & 0x80)) {
			*v = x;
			return i + 1;
		}
	}
	return 0;
}

/* The wire type a field of this type has when it is not packed. */
static unsigned wire_of(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
		return 5;
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return 1;
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_BYTES:
	case PROTOBUF_C_TYPE_MESSAGE:
		return 2;
	default:
		return 0;       /* integers, enums, bools: varints */
	}
}

/* Check the n bytes at p (file offset base) as a message of type desc. */
static int wire_scan(const uint8_t *p, size_t n, size_t base,
		     const ProtobufCMessageDescriptor *desc, int depth,
		     struct wire_err *e)
{
	/* What runs out when a value is cut off. */
	const char *end = depth ? desc->short_name : "file";
	const char *cut = depth ? "" : ": the file is truncated";
	size_t i = 0;

	while (i < n) {
		const ProtobufCFieldDescriptor *fd;
		size_t at = i, k;
		uint64_t tag, len = 0;
		unsigned wt, want;

		/* protobuf-c reads tags of at most 5 bytes, and field 0 does
		 * not exist. */
		if ((p[i] & 0xf8) == 0)
			return wire_fail(e, base + at, desc, NULL,
					 "byte 0x%02x is not a field tag "
					 "(field number 0)", p[i]);
		k = wire_varint(p + i, n - i, 5, &tag);
		if (!k && n - i < 5)
			return wire_fail(e, base + at, desc, NULL, "a field tag "
					 "cut off by the end of the %s%s", end,
					 cut);
		if (!k)
			return wire_fail(e, base + at, desc, NULL, "a field tag "
					 "longer than 5 bytes");
		wt = (unsigned)(tag & 7);
		fd = protobuf_c_message_descriptor_get_field(
			desc, (unsigned)((uint32_t)tag >> 3));
		i += k;
		switch (wt) {
		case 0:
			k = wire_varint(p + i, n - i, 10, &len);
			if (!k && n - i < 10)
				return wire_fail(e, base + i, desc, fd, "a "
						 "varint cut off by the end of "
						 "the %s%s", end, cut);
			if (!k)
				return wire_fail(e, base + i, desc, fd, "a "
						 "varint longer than 10 bytes");
			i += k;
			break;
		case 1:
		case 5:
			k = wt == 1 ? 8 : 4;
			if (n - i < k)
				return wire_fail(e, base + i, desc, fd,
						 "a %zu-byte value cut off by "
						 "the end of the %s%s", k, end,
						 cut);
			i += k;
			break;
		case 2:
			k = wire_varint(p + i, n - i, 5, &len);
			if (!k && n - i < 5)
				return wire_fail(e, base + i, desc, fd, "a "
						 "length cut off by the end of "
						 "the %s%s", end, cut);
			if (!k)
				return wire_fail(e, base + i, desc, fd, "a "
						 "length prefix longer than 5 "
						 "bytes");
			if (len > INT_MAX)
				return wire_fail(e, base + i, desc, fd,
						 "length %llu is beyond "
						 "protobuf's 2 GiB limit",
						 (unsigned long long)len);
			if (len > n - i - k)
				return wire_fail(e, base + i, desc, fd,
						 "length %llu runs past the end "
						 "of the %s (%zu bytes left)%s",
						 (unsigned long long)len, end,
						 n - i - k, cut);
			i += k;
			break;
		default:
			return wire_fail(e, base + at, desc, NULL,
					 "wire type %u in the tag of field %u "
					 "(3 and 4 are protobuf groups, which "
					 "ONNX never uses; 6 and 7 do not exist)",
					 wt, (unsigned)((uint32_t)tag >> 3));
		}
		if (fd) {
			/* protobuf-c accepts a repeated number field packed
			 * (one length-delimited run) or one by one. */
			want = wire_of(fd->type);
			int packed = fd->label == PROTOBUF_C_LABEL_REPEATED &&
				     wt == 2 && want != 2;
			if (wt != want && !packed)
				return wire_fail(e, base + at, desc, fd,
						 "wire type %u, but the schema's "
						 "field %u needs wire type %u",
						 wt, fd->id, want);
			if (packed && want != 0 && len % (want == 5 ? 4 : 8))
				return wire_fail(e, base + i, desc, fd,
						 "packed %u-byte values in a "
						 "length of %llu", want == 5 ?
						 4 : 8, (unsigned long long)len);
			for (size_t j = 0; packed && want == 0 && j < len;
			     j += k) {
				uint64_t v;
				k = wire_varint(p + i + j, (size_t)len - j, 10,
						&v);
				if (!k)
					return wire_fail(e, base + i + j, desc,
							 fd, "a packed varint "
							 "that does not end");
			}
			if (!packed && fd->type == PROTOBUF_C_TYPE_MESSAGE) {
				if (depth + 1 >= WIRE_MAX_DEPTH)
					return wire_fail(e, base + at, desc, fd,
							 "messages nested "
							 "deeper than %d "
							 "levels",
							 WIRE_MAX_DEPTH);
				if (wire_scan(p + i, (size_t)len, base + i,
					      fd->descriptor, depth + 1, e))
					return -1;
			}
			if (depth == 0)
				e->known_top = 1;
		}
		if (wt == 2)
			i += (size_t)len;
	}
	return 0;
}

/* ---- tensors ------------------------------------------------------------ */

/* A tensor with a producer, or a graph input or constant: one that a
 * node may read and no node may write again. */
static int defined(const struct g_tensor *x)
{
	return x->producer >= 0 || (x->flags & (G_T_INPUT | G_T_CONST));
}

static int oom(struct imp *im)
{
	return imp_err(im, NPU_ENOMEM, "out of memory");
}

/* Element count of dims (rank n), or -1 when negative or beyond int64. */
static int64_t count_elems(const int64_t *dims, size_t n)
{
	int64_t e = 1;

	for (size_t i = 0; i < n; i++) {
		if (dims[i] < 0 || (dims[i] && e > INT64_MAX / dims[i]))
			return -1;
		e *= dims[i];
	}
	return e;
}

/* The TensorProto fields that can hold values, for the rules below. */
enum tsrc { TS_RAW, TS_FLOAT, TS_INT32, TS_INT64, TS_DOUBLE, TS_UINT64,
	    TS_STRING, TS_N };

static const char *const tsrc_name[TS_N] = {
	"raw_data", "float_data", "int32_data", "int64_data", "double_data",
	"uint64_data", "string_data",
};

/* Which graph dtypes each value field may carry (onnx.proto's comments
 * on TensorProto): int32_data also holds 8-bit integers, bools and the
 * bit patterns of float16 and bfloat16; double_data, uint64_data and
 * string_data hold no dtype the graph has. */
static int tsrc_allows(enum tsrc s, enum g_dtype t)
{
	switch (s) {
	case TS_RAW: return 1;
	case TS_FLOAT: return t == G_DT_F32;
	case TS_INT32: return t == G_DT_I32 || t == G_DT_I8 || t == G_DT_U8 ||
			      t == G_DT_BOOL || t == G_DT_F16 || t == G_DT_BF16;
	case TS_INT64: return t == G_DT_I64;
	default: return 0;
	}
}

/*
 * Fill tensor t from a TensorProto (an initializer or a Constant's value):
 * dtype, shape, and its values as a little-endian array of the dtype.
 * what names it in messages ("initializer 'w'").
 */
static int tensor_from_proto(struct imp *im, Onnx__TensorProto *tp,
			     int t, const char *what)
{
	char buf[160], db[128];
	size_t nv[TS_N] = {
		[TS_RAW] = tp->raw_data.len, [TS_FLOAT] = tp->n_float_data,
		[TS_INT32] = tp->n_int32_data, [TS_INT64] = tp->n_int64_data,
		[TS_DOUBLE] = tp->n_double_data,
		[TS_UINT64] = tp->n_uint64_data,
		[TS_STRING] = tp->n_string_data,
	};
	int src = -1, n_src = 0;

	if (tp->has_data_location &&
	    tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
		return imp_err(im, NPU_EMODEL, "%s: its data is in an external "
			       "file (data_location EXTERNAL), which is not "
			       "supported; store it in the model: "
			       "onnx.save_model(onnx.load(path), out, "
			       "save_as_external_data=False)", what);
	if (tp->segment)
		return imp_err(im, NPU_EMODEL, "%s: segmented tensors "
			       "(TensorProto.segment) are not supported", what);
	enum g_dtype dt = g_dtype_from_onnx(tp->data_type);
	if (dt == G_DT_NONE)
		return imp_err(im, NPU_EMODEL, "%s: dtype %s is not supported "
			       "(supported: %s)", what,
			       onnx_dtype_name(tp->data_type),
			       dtype_list(buf, sizeof buf));
	if (tp->n_dims > G_MAX_RANK)
		return imp_err(im, NPU_EMODEL, "%s: rank %zu is beyond the "
			       "supported %d", what, tp->n_dims, G_MAX_RANK);
	dims_str(tp->dims, tp->n_dims, db, sizeof db);
	int64_t elems = count_elems(tp->dims, tp->n_dims);
	if (elems < 0)
		return imp_err(im, NPU_EMODEL, "%s: invalid dims %s", what, db);
	/* Every value takes at least a byte of the file, so more than the
	 * file could hold is a broken header (and keeps sizes in range). */
	if ((uint64_t)elems > ONNX_FILE_MAX)
		return imp_err(im, NPU_EMODEL, "%s: dims %s hold more values "
			       "than a model file can", what, db);
	for (int s = 0; s < TS_N; s++)
		if (nv[s] || (s == TS_RAW && tp->has_raw_data)) {
			if (n_src++)
				return imp_err(im, NPU_EMODEL, "%s: values in "
					       "both %s and %s", what,
					       tsrc_name[src], tsrc_name[s]);
			src = s;
		}
	if (src >= 0 && !tsrc_allows((enum tsrc)src, dt))
		return imp_err(im, NPU_EMODEL, "%s: %s values in %s, which "
			       "ONNX does not use for %s", what,
			       onnx_dtype_name(tp->data_type), tsrc_name[src],
			       onnx_dtype_name(tp->data_type));

	size_t esz = (size_t)g_dtype_bytes(dt);
	if (src < 0 && elems)
		return imp_err(im, NPU_EMODEL, "%s: no values (dims %s need "
			       "%lld)", what, db, (long long)elems);
	if (src > TS_RAW && nv[src] != (uint64_t)elems)
		return imp_err(im, NPU_EMODEL, "%s: %s holds %zu values; dims "
			       "%s need %lld", what, tsrc_name[src], nv[src], db,
			       (long long)elems);
	if (src == TS_RAW && (nv[src] % esz || nv[src] / esz !=
			      (uint64_t)elems))
		return imp_err(im, NPU_EMODEL, "%s: raw_data holds %zu bytes; "
			       "dims %s of %s need %lld", what, nv[src], db,
			       g_dtype_name(dt), (long long)elems * (long long)esz);

	size_t bytes = (size_t)elems * esz;
	unsigned char *data;
	if (src == TS_RAW && pb_take(im->heap, tp->raw_data.data, bytes)) {
		/* the message's block becomes the tensor's */
		data = tp->raw_data.data;
		tp->raw_data.data = NULL;
		tp->raw_data.len = 0;
		src = -1;
	} else if (!(data = malloc(bytes ? bytes : 1))) {
		return oom(im);
	}
	switch (src) {
	case TS_RAW:
		if (bytes)
			memcpy(data, tp->raw_data.data, bytes);
		break;
	case TS_FLOAT:
		memcpy(data, tp->float_data, bytes);
		break;
	case TS_INT64:
		memcpy(data, tp->int64_data, bytes);
		break;
	case TS_INT32:
		for (size_t i = 0; i < (size_t)elems; i++) {
			int32_t v = tp->int32_data[i];
			int lo = dt == G_DT_I8 ? -128 : 0;
			int hi = dt == G_DT_I8 ? 127 : dt == G_DT_U8 ? 255 :
				 dt == G_DT_BOOL ? 1 : 65535;
			if (dt != G_DT_I32 && (v < lo || v > hi)) {
				free(data);
				return imp_err(im, NPU_EMODEL, "%s: int32_data[%zu] "
					       "= %d does not fit %s (%d..%d%s)",
					       what, i, (int)v, g_dtype_name(dt),
					       lo, hi, hi == 65535 ?
					       ", the value's bit pattern" : "");
			}
			if (esz == 4)
				memcpy(data + 4 * i, &v, 4);
			else if (esz == 2) {
				uint16_t h = (uint16_t)v;
				memcpy(data + 2 * i, &h, 2);
			} else
				data[i] = (unsigned char)(v & 0xff);
		}
		break;
	default:
		break;          /* no values: an empty tensor */
	}
	struct g_tensor *x = &im->g->tensors[t];
	free(x->data);
	x->data = data;
	x->dtype = dt;
	x->rank = (int)tp->n_dims;
	for (size_t i = 0; i < tp->n_dims; i++)
		x->dim[i] = tp->dims[i];
	x->flags |= G_T_CONST;
	return 0;
}

/*
 * dtype and shape of tensor t from a ValueInfoProto.  Graph inputs must
 * say both, and a symbolic dimension (dim_param "batch", or none at all)
 * is taken as 1: npusim runs one static shape.  For outputs and
 * value_info the type is optional and a shape with a symbolic dimension
 * is left for graph_infer (it would not be 1 downstream of a real 1,
 * e.g. "past + 1").  A type that disagrees with one already known is an
 * error.
 */
static int apply_type(struct imp *im, const Onnx__ValueInfoProto *vi, int t,
		      const char *role)
{
	const Onnx__TypeProto *tp = vi->type;
	const char *name = str(vi->name);
	int input = !strcmp(role, "input");
	char buf[160];

	if (!tp) {
		if (input)
			return imp_err(im, NPU_EMODEL, "%s '%s' has no type",
				       role, name);
		return 0;
	}
	if (tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
		return imp_err(im, NPU_EMODEL, "%s '%s' is not a tensor "
			       "(sequence, map, optional and sparse types are "
			       "not supported)", role, name);
	const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
	enum g_dtype dt = g_dtype_from_onnx(tt->elem_type);
	if (dt == G_DT_NONE && (input || tt->has_elem_type))
		return imp_err(im, NPU_EMODEL, "%s '%s': dtype %s is not "
			       "supported (supported: %s)", role, name,
			       onnx_dtype_name(tt->elem_type),
			       dtype_list(buf, sizeof buf));
	const Onnx__TensorShapeProto *sh = tt->shape;
	if (!sh && input)
		return imp_err(im, NPU_EMODEL, "input '%s' has no shape "
			       "(npusim needs the rank and dimensions of "
			       "each input)", name);
	if (sh && sh->n_dim > G_MAX_RANK)
		return imp_err(im, NPU_EMODEL, "%s '%s': rank %zu is beyond "
			       "the supported %d", role, name, sh->n_dim,
			       G_MAX_RANK);
	int64_t dim[G_MAX_RANK];
	int rank = sh ? (int)sh->n_dim : -1;
	for (int i = 0; i < rank; i++) {
		const Onnx__TensorShapeProto__Dimension *dm = sh->dim[i];
		if (dm->value_case ==
		    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
			if (dm->dim_value < 0)
				return imp_err(im, NPU_EMODEL, "%s '%s': "
					       "dimension %d is %lld", role,
					       name, i,
					       (long long)dm->dim_value);
			dim[i] = dm->dim_value;
		} else if (input) {
			dim[i] = 1;
		} else {
			rank = -1;      /* symbolic: graph_infer's to find */
		}
	}

	struct g_tensor *x = &im->g->tensors[t];
	if (dt != G_DT_NONE) {
		if (x->dtype != G_DT_NONE && x->dtype != dt)
			return imp_err(im, NPU_EMODEL, "%s '%s' is %s here and "
				       "%s elsewhere in the model", role, name,
				       g_dtype_name(dt),
				       g_dtype_name(x->dtype));
		x->dtype = dt;
	}
	if (rank >= 0) {
		if (x->rank >= 0 && (x->rank != rank ||
		    memcmp(x->dim, dim, (size_t)rank * sizeof *dim))) {
			char a[128], b[128];
			return imp_err(im, NPU_EMODEL, "%s '%s' has shape %s "
				       "here and %s elsewhere in the model",
				       role, name,
				       dims_str(dim, (size_t)rank, a, sizeof a),
				       dims_str(x->dim, (size_t)x->rank, b,
						sizeof b));
		}
		x->rank = rank;
		memcpy(x->dim, dim, (size_t)rank * sizeof *dim);
	}
	return 0;
}

/* ---- nodes: messages ----------------------------------------------------- */

/* The node's name; an unnamed one is called what graph_add_node calls
 * it ("<op>_<graph index>"). */
static const char *node_name(struct imp *im, const Onnx__NodeProto *np,
			     char *buf, size_t n)
{
	if (im->cur >= 0)
		return im->g->nodes[im->cur].name;
	if (np->name && *np->name)
		return np->name;
	snprintf(buf, n, "%s_%d", np->op_type && *np->op_type ? np->op_type :
		 "?", im->g->n_nodes);
	return buf;
}

/* "node 12 'conv1' (Conv, opset 13)", as graph_node_where says it. */
static const char *node_where(struct imp *im, int k,
			      const Onnx__NodeProto *np, char *buf, size_t n)
{
	char nb[96];
	snprintf(buf, n, "node %d '%s' (%s, opset %d)", k,
		 node_name(im, np, nb, sizeof nb),
		 np->op_type && *np->op_type ? np->op_type : "?", im->opset);
	return buf;
}

static int node_err(struct imp *im, int k, const Onnx__NodeProto *np,
		    const char *fmt, ...) NPU_PRINTF(4, 5);

static int node_err(struct imp *im, int k, const Onnx__NodeProto *np,
		    const char *fmt, ...)
{
	char where[256], msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return imp_err(im, NPU_EMODEL, "%s: %s",
		       node_where(im, k, np, where, sizeof where), msg);
}

/* ---- nodes: attributes --------------------------------------------------- */

/* What an attribute sets (struct g_node), or how it is checked. */
enum akey {
	AK_IGNORE,      /* cannot change an inference result (see the rule) */
	AK_ZERO,        /* only 0 (the inference behaviour) is supported */
	AK_KERNEL, AK_STRIDES, AK_DILATIONS, AK_PADS, AK_AUTO_PAD, AK_GROUP,
	AK_CEIL, AK_CIP, AK_AXIS, AK_KEEPDIMS, AK_AXES, AK_PERM, AK_TRANS_A,
	AK_TRANS_B, AK_ALPHA, AK_BETA, AK_EPS, AK_LO, AK_HI, AK_SPLIT,
	AK_PAD_MODE, AK_RESIZE_MODE, AK_COORD, AK_NEAREST, AK_APPROX,
};

/*
 * The attributes of each supported operator in ONNX opsets up to 17
 * (onnx/defs, Operators.md), with the opsets they belong to; any other
 * attribute, or one outside its opsets, is an error.  The AK_IGNORE rows
 * say why they cannot matter.
 */
static const struct attr_rule {
	enum g_op op;
	const char *name;
	int type;               /* AT(...) */
	int since, until;       /* opsets it belongs to (0: no bound) */
	enum akey key;
} attr_rules[] = {
	{ G_CONV, "auto_pad", AT(STRING), 0, 0, AK_AUTO_PAD },
	{ G_CONV, "dilations", AT(INTS), 0, 0, AK_DILATIONS },
	{ G_CONV, "group", AT(INT), 0, 0, AK_GROUP },
	{ G_CONV, "kernel_shape", AT(INTS), 0, 0, AK_KERNEL },
	{ G_CONV, "pads", AT(INTS), 0, 0, AK_PADS },
	{ G_CONV, "strides", AT(INTS), 0, 0, AK_STRIDES },
	{ G_GEMM, "alpha", AT(FLOAT), 0, 0, AK_ALPHA },
	{ G_GEMM, "beta", AT(FLOAT), 0, 0, AK_BETA },
	{ G_GEMM, "transA", AT(INT), 0, 0, AK_TRANS_A },
	{ G_GEMM, "transB", AT(INT), 0, 0, AK_TRANS_B },
	/* Clip's bounds became inputs in opset 11. */
	{ G_CLIP, "min", AT(FLOAT), 0, 10, AK_LO },
	{ G_CLIP, "max", AT(FLOAT), 0, 10, AK_HI },
	/* Gelu is opset 20's; exporters emit it in older opsets too. */
	{ G_GELU, "approximate", AT(STRING), 0, 0, AK_APPROX },
	{ G_HARDSIGMOID, "alpha", AT(FLOAT), 0, 0, AK_ALPHA },
	{ G_HARDSIGMOID, "beta", AT(FLOAT), 0, 0, AK_BETA },
	{ G_SOFTMAX, "axis", AT(INT), 0, 0, AK_AXIS },
	{ G_LAYERNORM, "axis", AT(INT), 0, 0, AK_AXIS },
	{ G_LAYERNORM, "epsilon", AT(FLOAT), 0, 0, AK_EPS },
	/* The precision of the mean and variance; npusim computes them
	 * in its own numerics (docs/numerics.md) whatever it says. */
	{ G_LAYERNORM, "stash_type", AT(INT), 0, 0, AK_IGNORE },
	{ G_BATCHNORM, "epsilon", AT(FLOAT), 0, 0, AK_EPS },
	/* Updates the running statistics in training only. */
	{ G_BATCHNORM, "momentum", AT(FLOAT), 0, 0, AK_IGNORE },
	{ G_BATCHNORM, "training_mode", AT(INT), 14, 0, AK_ZERO },
	{ G_MAXPOOL, "auto_pad", AT(STRING), 0, 0, AK_AUTO_PAD },
	{ G_MAXPOOL, "ceil_mode", AT(INT), 0, 0, AK_CEIL },
	{ G_MAXPOOL, "dilations", AT(INTS), 0, 0, AK_DILATIONS },
	{ G_MAXPOOL, "kernel_shape", AT(INTS), 0, 0, AK_KERNEL },
	{ G_MAXPOOL, "pads", AT(INTS), 0, 0, AK_PADS },
	/* The layout of the Indices output only, which is not supported. */
	{ G_MAXPOOL, "storage_order", AT(INT), 0, 0, AK_IGNORE },
	{ G_MAXPOOL, "strides", AT(INTS), 0, 0, AK_STRIDES },
	{ G_AVGPOOL, "auto_pad", AT(STRING), 0, 0, AK_AUTO_PAD },
	{ G_AVGPOOL, "ceil_mode", AT(INT), 0, 0, AK_CEIL },
	{ G_AVGPOOL, "count_include_pad", AT(INT), 0, 0, AK_CIP },
	{ G_AVGPOOL, "kernel_shape", AT(INTS), 0, 0, AK_KERNEL },
	{ G_AVGPOOL, "pads", AT(INTS), 0, 0, AK_PADS },
	{ G_AVGPOOL, "strides", AT(INTS), 0, 0, AK_STRIDES },
	{ G_FLATTEN, "axis", AT(INT), 0, 0, AK_AXIS },
	{ G_RESHAPE, "allowzero", AT(INT), 14, 0, AK_ZERO },
	/* Squeeze's and Unsqueeze's axes became input 2 in opset 13. */
	{ G_SQUEEZE, "axes", AT(INTS), 0, 12, AK_AXES },
	{ G_UNSQUEEZE, "axes", AT(INTS), 0, 12, AK_AXES },
	{ G_TRANSPOSE, "perm", AT(INTS), 0, 0, AK_PERM },
	{ G_CONCAT, "axis", AT(INT), 0, 0, AK_AXIS },
	{ G_SPLIT, "axis", AT(INT), 0, 0, AK_AXIS },
	{ G_SPLIT, "split", AT(INTS), 0, 12, AK_SPLIT },
	{ G_GATHER, "axis", AT(INT), 0, 0, AK_AXIS },
	{ G_RESIZE, "coordinate_transformation_mode", AT(STRING), 0, 0,
	  AK_COORD },
	/* cubic_coeff_a weighs the cubic mode, exclude_outside the cubic
	 * and linear weights, extrapolation_value the tf_crop_and_resize
	 * transformation: none of them the nearest mode with the supported
	 * transformations. */
	{ G_RESIZE, "cubic_coeff_a", AT(FLOAT), 0, 0, AK_IGNORE },
	{ G_RESIZE, "exclude_outside", AT(INT), 0, 0, AK_IGNORE },
	{ G_RESIZE, "extrapolation_value", AT(FLOAT), 0, 0, AK_IGNORE },
	{ G_RESIZE, "mode", AT(STRING), 0, 0, AK_RESIZE_MODE },
	{ G_RESIZE, "nearest_mode", AT(STRING), 0, 0, AK_NEAREST },
	/* Per-axis quantisation arrived in opset 13. */
	{ G_QUANT, "axis", AT(INT), 13, 0, AK_AXIS },
	{ G_DEQUANT, "axis", AT(INT), 13, 0, AK_AXIS },
	{ G_PAD, "mode", AT(STRING), 0, 0, AK_PAD_MODE },
	/* ReduceMean's axes stay an attribute up to opset 17. */
	{ G_REDUCEMEAN, "axes", AT(INTS), 0, 17, AK_AXES },
	{ G_REDUCEMEAN, "keepdims", AT(INT), 0, 0, AK_KEEPDIMS },
	/* Dropout is the identity at inference: its seed and (before
	 * opset 12) ratio only shape the training-time mask. */
	{ G_DROPOUT, "ratio", AT(FLOAT), 0, 11, AK_IGNORE },
	{ G_DROPOUT, "seed", AT(INT), 12, 0, AK_IGNORE },
};

#define N_RULES (sizeof attr_rules / sizeof attr_rules[0])

static int rule_applies(const struct attr_rule *r, int opset)
{
	return (!r->since || opset >= r->since) &&
	       (!r->until || opset <= r->until);
}

/* "auto_pad, dilations, ..." - op's attributes in opset, or "none". */
static const char *rule_list(enum g_op op, int opset, char *buf, size_t n)
{
	size_t k = 0;

	buf[0] = 0;
	for (size_t i = 0; i < N_RULES && k < n; i++)
		if (attr_rules[i].op == op && rule_applies(&attr_rules[i], opset))
			k += (size_t)snprintf(buf + k, n - k, "%s%s",
					      k ? ", " : "", attr_rules[i].name);
	if (!k)
		snprintf(buf, n, "none");
	return buf;
}

/* Attribute state of one node being imported. */
struct nctx {
	struct imp *im;
	const Onnx__NodeProto *np;
	int k;                  /* position in the file */
	struct g_node *n;
	int has_kernel;
	int has_pads;
	char coord[40];         /* Resize's coordinate_transformation_mode */
	char nearest[40];       /* Resize's nearest_mode ("": absent) */
};

/* Attribute a's string (STRING type), NUL-terminated within limits. */
static int attr_string(struct nctx *c, const Onnx__AttributeProto *a,
		       char *buf, size_t n)
{
	if (!a->has_s || a->s.len >= n || memchr(a->s.data, 0, a->s.len))
		return node_err(c->im, c->k, c->np, "attribute '%s' has no "
				"string, or one of NUL bytes or over %zu "
				"bytes (none of its values)", a->name, n - 1);
	memcpy(buf, a->s.data, a->s.len);
	buf[a->s.len] = 0;
	return 0;
}

/* An INT attribute in lo..hi into *out. */
static int attr_int(struct nctx *c, const Onnx__AttributeProto *a,
		    int64_t lo, int64_t hi, int *out)
{
	if (a->i < lo || a->i > hi)
		return node_err(c->im, c->k, c->np, "attribute '%s' = %lld is "
				"out of range (supported: %lld..%lld)", a->name,
				(long long)a->i, (long long)lo, (long long)hi);
	*out = (int)a->i;
	return 0;
}

/* An INTS attribute of exactly want values (or at most -want when
 * want < 0), each in lo..hi, into out[]. */
static int attr_ints(struct nctx *c, const Onnx__AttributeProto *a,
		     int want, int64_t lo, int64_t hi, int64_t *out,
		     const char *what)
{
	if (want >= 0 ? a->n_ints != (size_t)want : a->n_ints > (size_t)-want)
		return node_err(c->im, c->k, c->np, "attribute '%s' has %zu "
				"values; supported: %s%d (%s)", a->name,
				a->n_ints, want >= 0 ? "" : "at most ",
				want >= 0 ? want : -want, what);
	for (size_t i = 0; i < a->n_ints; i++) {
		if (a->ints[i] < lo || a->ints[i] > hi)
			return node_err(c->im, c->k, c->np, "attribute '%s' "
					"value %zu is %lld; supported: "
					"%lld..%lld", a->name, i,
					(long long)a->ints[i], (long long)lo,
					(long long)hi);
		out[i] = a->ints[i];
	}
	return 0;
}

/* Apply attribute a by its rule. */
static int apply_attr(struct nctx *c, const Onnx__AttributeProto *a,
		      const struct attr_rule *r)
{
	struct g_node *n = c->n;
	int64_t v[G_MAX_OUT];
	char s[40];
	int e = 0;

	switch (r->key) {
	case AK_IGNORE:
		return 0;
	case AK_ZERO:
		if (a->i != 0)
			return node_err(c->im, c->k, c->np, "attribute '%s' = "
					"%lld is not supported (supported: 0, "
					"the inference behaviour)", a->name,
					(long long)a->i);
		return 0;
	case AK_KERNEL:
	case AK_STRIDES:
	case AK_DILATIONS: {
		/* 2-D only: the graph and the kernels know H and W. */
		int *f = r->key == AK_KERNEL ? n->kernel :
			 r->key == AK_STRIDES ? n->stride : n->dil;
		if ((e = attr_ints(c, a, 2, 1, INT_MAX, v, "2-D operators "
				   "only")))
			return e;
		f[0] = (int)v[0];
		f[1] = (int)v[1];
		c->has_kernel |= r->key == AK_KERNEL;
		return 0;
	}
	case AK_PADS:
		/* ONNX orders pads x1_begin, x2_begin, x1_end, x2_end;
		 * for 2-D (H, W) that is top, left, bottom, right, the
		 * order of g_node.pad. */
		if ((e = attr_ints(c, a, 4, 0, INT_MAX, v, "2-D: top, left, "
				   "bottom, right")))
			return e;
		for (int i = 0; i < 4; i++)
			n->pad[i] = (int)v[i];
		c->has_pads = 1;
		return 0;
	case AK_AUTO_PAD: {
		/* NOTSET is g_node's "". */
		static const char *const modes[] = { "NOTSET", "SAME_UPPER",
						     "SAME_LOWER", "VALID" };
		if ((e = attr_string(c, a, s, sizeof s)))
			return e;
		for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
			if (!strcmp(s, modes[i])) {
				snprintf(n->auto_pad, sizeof n->auto_pad, "%s",
					 i ? modes[i] : "");
				return 0;
			}
		return node_err(c->im, c->k, c->np, "auto_pad '%s' is not one "
				"of NOTSET, SAME_UPPER, SAME_LOWER, VALID", s);
	}
	case AK_GROUP:
		return attr_int(c, a, 1, INT_MAX, &n->group);
	case AK_CEIL:
		return attr_int(c, a, 0, 1, &n->ceil_mode);
	case AK_CIP:
		return attr_int(c, a, 0, 1, &n->count_include_pad);
	case AK_AXIS:
		/* [-rank, rank] at most (Flatten's); graph_infer knows the
		 * rank. */
		return attr_int(c, a, -G_MAX_RANK, G_MAX_RANK, &n->axis);
	case AK_KEEPDIMS:
		return attr_int(c, a, 0, 1, &n->keepdims);
	case AK_TRANS_A:
		return attr_int(c, a, 0, 1, &n->trans_a);
	case AK_TRANS_B:
		return attr_int(c, a, 0, 1, &n->trans_b);
	case AK_AXES:
		if ((e = attr_ints(c, a, -G_MAX_RANK, -G_MAX_RANK,
				   G_MAX_RANK - 1, n->axes, "a rank of at most "
				   "6")))
			return e;
		n->n_axes = (int)a->n_ints;
		return 0;
	case AK_PERM:
		if ((e = attr_ints(c, a, -G_MAX_RANK, 0, G_MAX_RANK - 1, v,
				   "a rank of at most 6")))
			return e;
		for (size_t i = 0; i < a->n_ints; i++) {
			if (v[i] >= (int64_t)a->n_ints)
				return node_err(c->im, c->k, c->np, "perm value "
						"%lld is not below its %zu "
						"axes", (long long)v[i],
						a->n_ints);
			for (size_t j = 0; j < i; j++)
				if (v[j] == v[i])
					return node_err(c->im, c->k, c->np,
							"perm names axis %lld "
							"twice", (long long)v[i]);
			n->perm[i] = (int)v[i];
		}
		n->n_perm = (int)a->n_ints;
		return 0;
	case AK_SPLIT:
		if ((e = attr_ints(c, a, -G_MAX_OUT, 0, INT64_MAX, n->split,
				   "the most outputs a node may have")))
			return e;
		n->n_split = (int)a->n_ints;
		return 0;
	case AK_ALPHA:
		n->alpha = a->f;
		return 0;
	case AK_BETA:
		n->beta = a->f;
		return 0;
	case AK_EPS:
		n->eps = a->f;
		return 0;
	case AK_LO:
		n->lo = a->f;
		return 0;
	case AK_HI:
		n->hi = a->f;
		return 0;
	case AK_PAD_MODE:
	case AK_RESIZE_MODE: {
		const char *ok = r->key == AK_PAD_MODE ? "constant" : "nearest";
		if ((e = attr_string(c, a, s, sizeof s)))
			return e;
		if (strcmp(s, ok))
			return node_err(c->im, c->k, c->np, "mode '%s' is not "
					"supported (supported: %s)", s, ok);
		return 0;
	}
	case AK_COORD:
		/* Checked as a pair with nearest_mode in node_check. */
		return attr_string(c, a, c->coord, sizeof c->coord);
	case AK_NEAREST:
		return attr_string(c, a, c->nearest, sizeof c->nearest);
	case AK_APPROX:
		if ((e = attr_string(c, a, s, sizeof s)))
			return e;
		if (strcmp(s, "none") && strcmp(s, "tanh"))
			return node_err(c->im, c->k, c->np, "approximate '%s' "
					"is not one of none, tanh", s);
		n->approx_tanh = !strcmp(s, "tanh");
		return 0;
	}
	return 0;
}

/* Find, check and apply one attribute. */
static int node_attr(struct nctx *c, const Onnx__AttributeProto *a)
{
	const struct attr_rule *r = NULL, *other = NULL;
	enum g_op op = c->n->op;
	int opset = c->im->opset;
	char buf[256];

	if (!a->name || !*a->name)
		return node_err(c->im, c->k, c->np, "an attribute has no name");
	if (a->ref_attr_name && *a->ref_attr_name)
		return node_err(c->im, c->k, c->np, "attribute '%s' refers to "
				"a function's attribute, which only a "
				"FunctionProto may", a->name);
	for (size_t i = 0; i < N_RULES; i++)
		if (attr_rules[i].op == op && !strcmp(attr_rules[i].name, a->name)) {
			if (rule_applies(&attr_rules[i], opset))
				r = &attr_rules[i];
			else
				other = &attr_rules[i];
		}
	if (!r && other) {
		char range[48];
		if (other->until)
			snprintf(range, sizeof range, "up to opset %d",
				 other->until);
		else
			snprintf(range, sizeof range, "from opset %d",
				 other->since);
		return node_err(c->im, c->k, c->np, "attribute '%s' belongs to "
				"%s %s only, not opset %d (%s takes: %s)",
				a->name, graph_op_name(op), range, opset,
				graph_op_name(op),
				rule_list(op, opset, buf, sizeof buf));
	}
	if (!r)
		return node_err(c->im, c->k, c->np, "unknown attribute '%s' "
				"(%s takes: %s)", a->name, graph_op_name(op),
				rule_list(op, opset, buf, sizeof buf));
	if (!a->has_type || (int)a->type != r->type)
		return node_err(c->im, c->k, c->np, "attribute '%s' is %s; "
				"%s's '%s' is %s", a->name,
				onnx_attr_type_name(a->has_type ? (int)a->type : 0),
				graph_op_name(op), r->name,
				onnx_attr_type_name(r->type));
	return apply_attr(c, a, r);
}

/* ---- nodes --------------------------------------------------------------- */

/* The op whose ONNX name is op_type, or -1.  Rows named in lower case are
 * the compiler's own (ops.def) and never imported. */
static int find_op(const char *op_type)
{
	for (int op = 0; op < G_N_OPS; op++)
		if (op_rows[op].name[0] >= 'A' && op_rows[op].name[0] <= 'Z' &&
		    !strcmp(op_rows[op].name, op_type))
			return op;
	return -1;
}

/* "AveragePool, BatchNormalization, ..." in ops.def's order. */
static const char *op_list(char *buf, size_t n)
{
	size_t k = 0;

	buf[0] = 0;
	for (int op = 0; op < G_N_OPS && k < n; op++)
		if (op_rows[op].name[0] >= 'A' && op_rows[op].name[0] <= 'Z')
			k += (size_t)snprintf(buf + k, n - k, "%s%s",
					      k ? ", " : "", op_rows[op].name);
	return buf;
}

/* A constant scalar's value, when tensor t is one (Clip's bounds). */
static int const_scalar(const struct graph *g, int t, double *v)
{
	return t >= 0 && (g->tensors[t].flags & G_T_CONST) &&
	       graph_elems(&g->tensors[t]) == 1 &&
	       graph_const_f64(&g->tensors[t], 0, v) == 0;
}

/* Checks and defaults that need all of a node's attributes and inputs. */
static int node_check(struct nctx *c)
{
	struct imp *im = c->im;
	struct g_node *n = c->n;
	const struct g_tensor *w;
	double v;

	switch (n->op) {
	case G_CONV:
		/* kernel_shape is optional: W's spatial dims say it. */
		w = &im->g->tensors[n->in[1]];
		if ((w->flags & G_T_CONST) && w->rank != 4)
			return node_err(im, c->k, c->np, "weights '%s' have "
					"rank %d; supported: 4 (2-D "
					"convolution, OIHW)", w->name, w->rank);
		if ((w->flags & G_T_CONST) && c->has_kernel &&
		    (w->dim[2] != n->kernel[0] || w->dim[3] != n->kernel[1]))
			return node_err(im, c->k, c->np, "kernel_shape %dx%d "
					"disagrees with weights '%s' (%lldx%lld)",
					n->kernel[0], n->kernel[1], w->name,
					(long long)w->dim[2],
					(long long)w->dim[3]);
		if ((w->flags & G_T_CONST) && !c->has_kernel) {
			if (w->dim[2] > INT_MAX || w->dim[3] > INT_MAX)
				return node_err(im, c->k, c->np, "weights "
						"'%s' too large", w->name);
			n->kernel[0] = (int)w->dim[2];
			n->kernel[1] = (int)w->dim[3];
		}
		/* fall through */
	case G_MAXPOOL:
	case G_AVGPOOL:
		if (n->op != G_CONV && !c->has_kernel)
			return node_err(im, c->k, c->np, "kernel_shape is "
					"missing (required)");
		if (c->has_pads && n->auto_pad[0] &&
		    (n->pad[0] || n->pad[1] || n->pad[2] || n->pad[3]))
			return node_err(im, c->k, c->np, "both pads and "
					"auto_pad %s are given (ONNX allows "
					"one)", n->auto_pad);
		return 0;
	case G_CLIP:
		/* Constant bounds known now (initializers, Constant nodes
		 * before this one) go into lo/hi too; the inputs stay. */
		if (n->n_in > 1 && const_scalar(im->g, n->in[1], &v))
			n->lo = (float)v;
		if (n->n_in > 2 && const_scalar(im->g, n->in[2], &v))
			n->hi = (float)v;
		return 0;
	case G_DROPOUT:
		if (n->n_in > 2 && const_scalar(im->g, n->in[2], &v) && v != 0)
			return node_err(im, c->k, c->np, "training_mode is "
					"true; supported: inference (false)");
		return 0;
	case G_UNSQUEEZE:
		if (im->opset < 13 && !n->n_axes)
			return node_err(im, c->k, c->np, "attribute 'axes' is "
					"missing (required before opset 13)");
		return 0;
	case G_RESIZE: {
		/*
		 * Integer upscaling by s in nearest mode copies each input
		 * element s times (output x reads input floor(x / s)) only
		 * for these transformations of x and roundings:
		 *   half_pixel, pytorch_half_pixel: (x + 0.5) / s - 0.5 lies
		 *     within 0.5 of floor(x / s), so either round_prefer_*
		 *     gives it;
		 *   asymmetric: x / s, and tf_half_pixel_for_nn (opsets 11
		 *     and 12): (x + 0.5) / s, give it with floor.
		 * Other pairs pick other pixels (align_corners scales by
		 * (in - 1) / (out - 1); ceil rounds up).
		 */
		const char *co = c->coord[0] ? c->coord : "half_pixel";
		const char *nm = c->nearest[0] ? c->nearest :
				 "round_prefer_floor";
		int half = !strcmp(co, "half_pixel") ||
			   !strcmp(co, "pytorch_half_pixel");
		int asym = !strcmp(co, "asymmetric") ||
			   (!strcmp(co, "tf_half_pixel_for_nn") &&
			    im->opset < 13);
		int ok = (half && (!strcmp(nm, "round_prefer_floor") ||
				   !strcmp(nm, "round_prefer_ceil"))) ||
			 (asym && !strcmp(nm, "floor"));
		if (!ok)
			return node_err(im, c->k, c->np, "coordinate_"
					"transformation_mode '%s' with "
					"nearest_mode '%s' is not supported "
					"(supported: half_pixel or "
					"pytorch_half_pixel with round_prefer_"
					"floor or round_prefer_ceil; asymmetric "
					"or, before opset 13, tf_half_pixel_for_"
					"nn with floor)", co, nm);
		return 0;
	}
	default:
		return 0;
	}
}

/*
 * A Constant node becomes a constant tensor, not a node: its one output,
 * from its one value attribute (value: a tensor; value_float(s),
 * value_int(s): float32 / int64 scalars or 1-D).
 */
static int import_constant(struct imp *im, int k, const Onnx__NodeProto *np)
{
	char where[256], what[384];
	const Onnx__AttributeProto *a;

	if (np->n_input)
		return node_err(im, k, np, "a Constant has no inputs");
	if (np->n_output != 1 || !np->output[0][0])
		return node_err(im, k, np, "a Constant has exactly one output");
	if (np->n_attribute != 1)
		return node_err(im, k, np, "a Constant has exactly one value "
				"attribute (value, value_float(s) or "
				"value_int(s)); this one has %zu",
				np->n_attribute);
	a = np->attribute[0];
	const char *name = str(a->name);
	int type = a->has_type ? (int)a->type : 0;
	static const struct { const char *name; int type; } forms[] = {
		{ "value", AT(TENSOR) }, { "value_float", AT(FLOAT) },
		{ "value_floats", AT(FLOATS) }, { "value_int", AT(INT) },
		{ "value_ints", AT(INTS) },
	};
	size_t f;
	for (f = 0; f < sizeof forms / sizeof forms[0]; f++)
		if (!strcmp(name, forms[f].name))
			break;
	if (f == sizeof forms / sizeof forms[0])
		return node_err(im, k, np, "value attribute '%s' is not "
				"supported (supported: value, value_float, "
				"value_floats, value_int, value_ints)", name);
	if (type != forms[f].type || (f == 0 && !a->t))
		return node_err(im, k, np, "attribute '%s' is %s; it must be "
				"%s", name, onnx_attr_type_name(type),
				onnx_attr_type_name(forms[f].type));

	int t = graph_tensor(im->g, np->output[0]);
	if (t < 0)
		return oom(im);
	struct g_tensor *x = &im->g->tensors[t];
	if (defined(x))
		return node_err(im, k, np, "output '%s' is already defined",
				x->name);
	snprintf(what, sizeof what, "%s: value '%s'",
		 node_where(im, k, np, where, sizeof where), x->name);
	if (f == 0)
		return tensor_from_proto(im, a->t, t, what);

	/* value_float(s) / value_int(s): scalar (rank 0) or 1-D. */
	int is_list = type == AT(FLOATS) || type == AT(INTS);
	size_t count = type == AT(FLOATS) ? a->n_floats :
		       type == AT(INTS) ? a->n_ints : 1;
	int is_float = type == AT(FLOAT) || type == AT(FLOATS);
	size_t esz = is_float ? 4 : 8;
	void *data = malloc(count ? count * esz : 1);
	if (!data)
		return oom(im);
	if (is_float)
		memcpy(data, is_list ? a->floats : &a->f, count * esz);
	else
		memcpy(data, is_list ? a->ints : &a->i, count * esz);
	free(x->data);
	x->data = data;
	x->dtype = is_float ? G_DT_F32 : G_DT_I64;
	x->rank = is_list;
	x->dim[0] = (int64_t)count;
	x->flags |= G_T_CONST;
	return 0;
}

/* One NodeProto (file position k) into the graph. */
static int import_node(struct imp *im, int k, const Onnx__NodeProto *np)
{
	struct graph *g = im->g;
	char buf[512];
	int e;

	if (!np->op_type || !*np->op_type)
		return node_err(im, k, np, "the node has no op_type");
	if (np->domain && *np->domain && strcmp(np->domain, "ai.onnx"))
		return imp_err(im, NPU_EMODEL, "node %d '%s' (%s, domain %s): "
			       "operators outside the default ONNX domain are "
			       "not supported", k,
			       node_name(im, np, buf, sizeof buf), np->op_type,
			       np->domain);
	int op = find_op(np->op_type);
	if (op < 0)
		return node_err(im, k, np, "unsupported operator (supported: "
				"%s)", op_list(buf, sizeof buf));
	if (op == G_CONSTANT)
		return import_constant(im, k, np);

	/* Inputs: trailing empty names are absent optional inputs. */
	int n_in = (int)np->n_input;
	while (n_in > 0 && !np->input[n_in - 1][0])
		n_in--;
	if (n_in < op_rows[op].min_in || n_in > op_rows[op].max_in)
		return node_err(im, k, np, "%d inputs; %s takes %d to %d", n_in,
				np->op_type, op_rows[op].min_in,
				op_rows[op].max_in);
	int n_out = (int)np->n_output;
	while (n_out > 0 && !np->output[n_out - 1][0])
		n_out--;
	int max_out = op_rows[op].n_out < 0 ? G_MAX_OUT : op_rows[op].n_out;
	if (n_out < 1 || n_out > max_out)
		return node_err(im, k, np, "%d outputs; supported: at least 1, "
				"at most %d (optional outputs beyond those, "
				"such as statistics or indices, are not)",
				n_out, max_out);

	int node = graph_add_node(g, (enum g_op)op, np->name);
	if (node < 0)
		return oom(im);
	im->cur = node;
	struct g_node *n = &g->nodes[node];
	n->src_index = k;
	n->opset = im->opset;
	/* ONNX defaults that differ from graph_add_node's. */
	if (op == G_HARDSIGMOID) {
		n->alpha = 0.2f;
		n->beta = 0.5f;
	}
	if (op == G_SOFTMAX && im->opset < 13)
		n->axis = 1;    /* the old Softmax flattens from axis on */
	if (op == G_RESIZE)
		snprintf(n->mode, sizeof n->mode, "nearest");
	if (op == G_PAD)
		snprintf(n->mode, sizeof n->mode, "constant");

	for (int i = 0; i < n_in; i++) {
		const char *name = np->input[i];
		if (!name[0]) {
			if (i < op_rows[op].min_in)
				return node_err(im, k, np, "input %d is "
						"required", i);
			continue;
		}
		int t = graph_find(g, name);
		if (t < 0 || !defined(&g->tensors[t]))
			return node_err(im, k, np, "input '%s' is neither a "
					"graph input, an initializer nor an "
					"output of an earlier node", name);
		n->in[i] = t;
	}
	n->n_in = n_in;
	for (int o = 0; o < n_out; o++) {
		const char *name = np->output[o];
		if (!name[0])
			continue;
		int t = graph_tensor(g, name);
		if (t < 0)
			return oom(im);
		n = &g->nodes[node];
		if (defined(&g->tensors[t]))
			return node_err(im, k, np, "output '%s' is already "
					"defined", name);
		g->tensors[t].producer = node;
		n->out[o] = t;
	}
	n->n_out = n_out;

	struct nctx c = { .im = im, .np = np, .k = k, .n = n };
	for (size_t i = 0; i < np->n_attribute; i++)
		if ((e = node_attr(&c, np->attribute[i])))
			return e;
	return node_check(&c);
}

/* ---- the model ----------------------------------------------------------- */

/* The default domain's opset into im->opset, with the IR version checked. */
static int check_model(struct imp *im, const Onnx__ModelProto *m)
{
	int64_t opset = -1;

	if (!m->has_ir_version && !m->graph)
		return imp_err(im, NPU_EMODEL, "not an ONNX model: a protobuf "
			       "message with neither ir_version nor graph");
	if (!m->has_ir_version)
		return imp_err(im, NPU_EMODEL, "the model has no ir_version");
	if (m->ir_version < ONNX_IR_MIN || m->ir_version > ONNX_IR_MAX)
		return imp_err(im, NPU_EMODEL, "IR version %lld is not supported "
			       "(supported: %d..%d)", (long long)m->ir_version,
			       ONNX_IR_MIN, ONNX_IR_MAX);
	for (size_t i = 0; i < m->n_opset_import; i++) {
		const char *dom = str(m->opset_import[i]->domain);
		if (*dom && strcmp(dom, "ai.onnx"))
			continue;
		if (opset >= 0)
			return imp_err(im, NPU_EMODEL, "opset_import names the "
				       "default domain twice");
		opset = m->opset_import[i]->version;
	}
	if (opset < 0)
		return imp_err(im, NPU_EMODEL, "opset_import has no opset for "
			       "the default ONNX domain");
	if (opset < ONNX_OPSET_MIN || opset > ONNX_OPSET_MAX)
		return imp_err(im, NPU_EMODEL, "opset %lld of the default ONNX "
			       "domain is not supported (supported: %d..%d; "
			       "onnx.version_converter.convert_version(model, "
			       "%d) converts a model)", (long long)opset,
			       ONNX_OPSET_MIN, ONNX_OPSET_MAX, ONNX_OPSET_MAX);
	if (!m->graph)
		return imp_err(im, NPU_EMODEL, "the model has no graph");
	im->opset = (int)opset;
	return 0;
}

static int import_graph(struct imp *im, const Onnx__GraphProto *gp)
{
	struct graph *g = im->g;
	char what[320];
	int e, t;

	if (gp->n_sparse_initializer)
		return imp_err(im, NPU_EMODEL, "sparse initializers are not "
			       "supported ('%s')",
			       str(gp->sparse_initializer[0]->values ?
				   gp->sparse_initializer[0]->values->name :
				   NULL));
	for (size_t i = 0; i < gp->n_initializer; i++) {
		Onnx__TensorProto *tp = gp->initializer[i];
		if (!tp->name || !*tp->name)
			return imp_err(im, NPU_EMODEL, "initializer %zu has no "
				       "name", i);
		if ((t = graph_tensor(g, tp->name)) < 0)
			return oom(im);
		if (g->tensors[t].flags & G_T_CONST)
			return imp_err(im, NPU_EMODEL, "initializer '%s' is "
				       "given twice", tp->name);
		snprintf(what, sizeof what, "initializer '%s'", tp->name);
		if ((e = tensor_from_proto(im, tp, t, what)))
			return e;
	}
	/* An input that is also an initializer (IR < 4 lists every
	 * initializer as an input) stays a constant. */
	for (size_t i = 0; i < gp->n_input; i++) {
		const Onnx__ValueInfoProto *vi = gp->input[i];
		if (!vi->name || !*vi->name)
			return imp_err(im, NPU_EMODEL, "input %zu has no name", i);
		t = graph_find(g, vi->name);
		if (t >= 0 && (g->tensors[t].flags & G_T_CONST))
			continue;
		if (t >= 0)
			return imp_err(im, NPU_EMODEL, "input '%s' is listed "
				       "twice", vi->name);
		if ((t = graph_tensor(g, vi->name)) < 0)
			return oom(im);
		if ((e = apply_type(im, vi, t, "input")))
			return e;
		if (graph_add_input(g, t))
			return oom(im);
	}
	for (size_t k = 0; k < gp->n_node; k++) {
		im->cur = -1;
		if ((e = import_node(im, (int)k, gp->node[k])))
			return e;
	}
	for (size_t i = 0; i < gp->n_output; i++) {
		const Onnx__ValueInfoProto *vi = gp->output[i];
		t = graph_find(g, str(vi->name));
		if (t < 0 || !defined(&g->tensors[t]))
			return imp_err(im, NPU_EMODEL, "graph output '%s' is "
				       "neither a node's output, an input nor "
				       "an initializer", str(vi->name));
		if (g->tensors[t].flags & G_T_OUTPUT)
			return imp_err(im, NPU_EMODEL, "graph output '%s' is "
				       "listed twice", vi->name);
		if ((e = apply_type(im, vi, t, "output")))
			return e;
		if (graph_add_output(g, t))
			return oom(im);
	}
	if (!gp->n_output)
		return imp_err(im, NPU_EMODEL, "the graph has no outputs");
	/* value_info of tensors the graph does not have describes nothing
	 * npusim could use. */
	for (size_t i = 0; i < gp->n_value_info; i++) {
		t = graph_find(g, str(gp->value_info[i]->name));
		if (t >= 0 && (e = apply_type(im, gp->value_info[i], t,
					      "value_info")))
			return e;
	}
	return 0;
}

/* How import_mem lets go of the file's bytes once decoded. */
enum { BUF_KEEP, BUF_FREE, BUF_UNMAP };

/* The import of *bufp; with BUF_FREE or BUF_UNMAP the buffer is freed or
 * unmapped (and *bufp set to NULL) as soon as protobuf-c has decoded it
 * (it copies every field), so a 100 MB model is not held three times
 * (file, decoded message, the graph's weights).  The caller releases
 * what is left in *bufp. */
static int import_mem(struct graph *g, void **bufp, size_t n,
		      const char *label, struct diag *d, int own);

int onnx_import_mem(struct graph *g, const void *buf, size_t n,
		    const char *label, struct diag *d)
{
	void *b = (void *)buf;
	return import_mem(g, &b, n, label, d, BUF_KEEP);
}

static int import_mem(struct graph *g, void **bufp, size_t n,
		      const char *label, struct diag *d, int own)
{
	const unsigned char *buf = *bufp;
	struct pb_heap heap = { 0 };
	ProtobufCAllocator al = { .alloc = pb_alloc, .free = pb_free,
				  .allocator_data = &heap };
	struct imp im = { .g = g, .d = d, .label = label ? label : g->source,
			  .cur = -1, .heap = &heap };
	struct wire_err we = { 0 };
	Onnx__ModelProto *m;
	int e;

	if (n == 0)
		return imp_err(&im, NPU_EMODEL, "empty file (an ONNX model is "
			       "a serialized ModelProto)");
	if (n > ONNX_FILE_MAX)
		return imp_err(&im, NPU_EMODEL, "%zu bytes is beyond protobuf's "
			       "2 GiB limit (larger models keep their weights "
			       "as external data, which is not supported)", n);
	if (wire_scan(buf, n, 0, &onnx__model_proto__descriptor, 0, &we)) {
		char ctx[96];
		snprintf(ctx, sizeof ctx, "%s%s%s", we.in, we.field ? "." : "",
			 we.field ? we.field : "");
		if (!we.known_top)
			return imp_err(&im, NPU_EMODEL, "not an ONNX model: "
				       "not a protobuf ModelProto (byte %zu: "
				       "%s)", we.at, we.why);
		return imp_err(&im, NPU_EMODEL, "malformed ONNX file at byte "
			       "%zu (in %s): %s", we.at, ctx, we.why);
	}
	m = onnx__model_proto__unpack(&al, n, buf);
	if (own == BUF_FREE)
		free(*bufp);
	else if (own == BUF_UNMAP)
		munmap(*bufp, n);
	if (own != BUF_KEEP)
		*bufp = NULL;
	if (!m) {
		free(heap.p);
		free(heap.n);
		return imp_err(&im, NPU_EMODEL, "protobuf-c could not decode "
			       "the model (out of memory, or a fault the "
			       "framing check does not locate)");
	}
	e = check_model(&im, m);
	if (!e) {
		g->opset = im.opset;
		e = import_graph(&im, m->graph);
	}
	onnx__model_proto__free_unpacked(m, &al);
	free(heap.p);
	free(heap.n);
	return e;
}

int onnx_import(struct graph *g, const char *path, struct diag *d)
{
	struct diag_loc at = diag_at_file(path, 0, 0);
	FILE *fp = fopen(path, "rb");
	unsigned char *buf, *nb;
	size_t n = 0, cap = 65536;
	struct stat st;
	int e;

	if (!fp)
		return diag_error(d, at, NPU_EIO, "cannot open: %s",
				  strerror(errno));
	if (fstat(fileno(fp), &st) == 0) {
		e = S_ISDIR(st.st_mode) ? diag_error(d, at, NPU_EIO, "is a "
						     "directory, not an ONNX "
						     "file") :
		    S_ISREG(st.st_mode) && (uint64_t)st.st_size > ONNX_FILE_MAX ?
		    diag_error(d, at, NPU_EMODEL, "beyond protobuf's 2 GiB "
			       "limit (larger models keep their weights as "
			       "external data, which is not supported)") : 0;
		if (e) {
			fclose(fp);
			return e;
		}
		/* A regular file is mapped: its pages come straight from
		 * the page cache, with no copy into a buffer of our own
		 * (for ResNet-50, 100 MB copied and faulted in); a pipe
		 * grows a buffer as it delivers. */
		if (S_ISREG(st.st_mode) && st.st_size > 0) {
			void *map = mmap(NULL, (size_t)st.st_size, PROT_READ,
					 MAP_PRIVATE, fileno(fp), 0);

			fclose(fp);
			if (map == MAP_FAILED)
				return diag_error(d, at, NPU_EIO, "cannot map: "
						  "%s", strerror(errno));
			(void)posix_madvise(map, (size_t)st.st_size,
					    POSIX_MADV_SEQUENTIAL);
			e = import_mem(g, &map, (size_t)st.st_size, path, d,
				       BUF_UNMAP);
			if (map)
				munmap(map, (size_t)st.st_size);
			return e;
		}
	}
	if (!(buf = malloc(cap))) {
		fclose(fp);
		return diag_error(d, at, NPU_ENOMEM, "out of memory");
	}
	for (;;) {
		size_t got = fread(buf + n, 1, cap - n, fp);
		if (got == 0)
			break;
		n += got;
		if (n < cap)
			continue;
		if (cap > ONNX_FILE_MAX || !(nb = realloc(buf, cap * 2))) {
			free(buf);
			fclose(fp);
			return cap > ONNX_FILE_MAX ?
			       diag_error(d, at, NPU_EMODEL, "beyond protobuf's "
					  "2 GiB limit") :
			       diag_error(d, at, NPU_ENOMEM, "out of memory");
		}
		buf = nb;
		cap *= 2;
	}
	if (ferror(fp)) {
		e = errno;
		free(buf);
		fclose(fp);
		return diag_error(d, at, NPU_EIO, "read error: %s", strerror(e));
	}
	fclose(fp);
	void *b = buf;
	e = import_mem(g, &b, n, path, d, BUF_FREE);
	free(b);
	return e;
}
