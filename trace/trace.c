/*
 * trace.c - Chrome Trace Event Format writer (see trace.h).
 *
 * The file is one JSON object, one event per line:
 *
 *   {"displayTimeUnit":"ns","otherData":{...},"traceEvents":[
 *   {"ph":"M","pid":0,"name":"process_name","args":{"name":"core 0"}},
 *   ...
 *   {"ph":"X","pid":0,"tid":2,"ts":0.012,"dur":0.064,"name":"mm",
 *    "args":{"cycle":12,"cycles":64,"pc":64}}
 *   ]}
 *
 * (format: "Trace Event Format", Google, docs.google.com/document/d/
 * 1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU).  Events are formatted into
 * a 64 KiB buffer and handed to zlib in blocks; the FNV-1a digest is kept
 * over every block as it leaves, so trc_digest costs one pass over at most
 * the buffer.  zlib's gzip writer emits a header with mtime 0 and no file
 * name (RFC 1952 section 2.3: MTIME = 0 means "no time stamp"), so the
 * compressed bytes depend only on the JSON bytes and the zlib version.
 */
#include "trace.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../util/fsout.h"
#include "../util/strutil.h"

#define TRC_BUF (64 * 1024)   /* formatting buffer; one gzwrite per fill */
#define FNV_OFFSET 0xcbf29ce484222325ull /* FNV-1a 64-bit parameters */
#define FNV_PRIME 0x100000001b3ull
/*
 * zlib level 1 ("fastest"): trace JSON is very repetitive, so level 1
 * already compresses it about 10x, at several times the speed of the
 * default level 6; traces of long runs are dominated by compression time.
 */
#define TRC_GZ_MODE "wb1"

/*
 * Closes the traceEvents array and the top object.  Part of the digest
 * even before it is written (trc_digest), so a digest taken mid-run
 * describes a complete, valid file.
 */
static const char trailer[] = "\n]}\n";

/* One lane of a track: a viewer thread holding non-overlapping spans. */
struct lane {
	int tid;            /* viewer thread id (unique in the trace) */
	uint64_t last_end;  /* end cycle of the latest span placed here */
};

/* One unit's track. */
struct track {
	char *name;          /* display name ("dma0", "dram.ch1") */
	int core;            /* core index, TRC_CHIP for chip-level units */
	enum trc_kind kind;  /* unit kind: sort order, --trace-units */
	int index;           /* instance of that kind (engine, channel) */
	int pid;             /* viewer process id */
	long sort;           /* thread_sort_index of lane 0 */
	int on;              /* selected by --trace-units (1 without a list) */
	int meta;            /* lane 0's thread metadata is written */
	int n_lanes;         /* lanes opened (>= 1) */
	struct lane lanes[TRC_MAX_LANES]; /* lanes[0] is the track itself */
};

struct trc {
	struct fsout out;    /* temporary file, renamed on close */
	gzFile gz;           /* gzip stream onto out's file descriptor */
	char *buf;           /* formatted, not yet compressed JSON */
	size_t len;          /* bytes used in buf */
	uint64_t fnv;        /* FNV-1a over the bytes already compressed */
	double ps_per_cycle; /* picoseconds per cycle; 0 = timestamps in cycles */
	uint64_t n_events;   /* events written (the first has no comma) */
	struct track *tracks; /* registered tracks, by id */
	int n_tracks, cap_tracks; /* used, allocated */
	int *pids;           /* processes whose metadata was written */
	int n_pids, cap_pids; /* used, allocated */
	int next_tid;        /* next viewer thread id */
	uint64_t n_overlap;  /* spans that had to overlap (all lanes busy) */
	uint64_t win_lo, win_hi; /* --trace-window [lo, hi) in cycles */
	char **units;        /* --trace-units items, NULL = every track */
	int *unit_hits;      /* tracks each item selected */
	int n_units;         /* items */
	int err;             /* first error (NPU_E*), reported at close */
	char errmsg[200];    /* its description */
};

/* ---- JSON helpers -----------------------------------------------------------*/

size_t trc_json_escape(char *dst, size_t cap, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0, w = 0; /* length needed, length written */

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[7];
		size_t k = 0, j;

		switch (c) {
		/* The short escapes of RFC 8259 section 7 where JSON has one. */
		case '"': esc[k++] = '\\'; esc[k++] = '"'; break;
		case '\\': esc[k++] = '\\'; esc[k++] = '\\'; break;
		case '\n': esc[k++] = '\\'; esc[k++] = 'n'; break;
		case '\r': esc[k++] = '\\'; esc[k++] = 'r'; break;
		case '\t': esc[k++] = '\\'; esc[k++] = 't'; break;
		case '\b': esc[k++] = '\\'; esc[k++] = 'b'; break;
		case '\f': esc[k++] = '\\'; esc[k++] = 'f'; break;
		default:
			if (c < 0x20) { /* other controls: \u00XX (RFC 8259 s.7) */
				memcpy(esc, "\\u00", 4);
				esc[4] = hex[c >> 4];
				esc[5] = hex[c & 15];
				k = 6;
			} else { /* UTF-8 bytes pass through */
				esc[k++] = (char)c;
			}
			break;
		}
		/* Only whole escapes are written, so a truncated result is
		 * still a valid JSON string body.  w == n: nothing dropped
		 * yet; once one escape does not fit, every later one is
		 * dropped too (no gap in the middle). */
		if (w == n && n + k < cap) {
			for (j = 0; j < k; j++)
				dst[w++] = esc[j];
		}
		n += k;
	}
	if (cap)
		dst[w] = '\0';
	return n;
}

void trc_json_member(char *dst, size_t cap, const char *key, const char *s)
{
	int n = snprintf(dst, cap, "\"%s\":\"", key);

	if (n < 0 || (size_t)n + 2 > cap) {
		snprintf(dst, cap, "\"\":0"); /* cannot happen: keys are short */
		return;
	}
	/* One byte kept for the closing quote. */
	trc_json_escape(dst + n, cap - (size_t)n - 1, s);
	strcat(dst, "\"");
}

size_t trc_json_double(char *dst, size_t cap, double v)
{
	char tmp[40];
	int prec;

	if (!isfinite(v))
		return (size_t)snprintf(dst, cap, "null");
	/* The shortest of %.1g .. %.17g that reads back exactly; 17
	 * significant digits always do for binary64 (IEEE 754-2008 5.12.2). */
	for (prec = 1; prec < 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	/*
	 * The loop leaves prec = 17 when no shorter form reads back, and
	 * tmp then holds the %.16g attempt, hence the final print again.
	 */
	snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
	return (size_t)snprintf(dst, cap, "%s", tmp);
}

/* ---- output buffer -----------------------------------------------------------*/

/* FNV-1a step over n bytes: h = (h ^ byte) * prime, byte by byte. */
static void fnv_fold(uint64_t *h, const char *p, size_t n)
{
	uint64_t x = *h;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= (unsigned char)p[i];
		x *= FNV_PRIME;
	}
	*h = x;
}

static void fail(struct trc *t, int err, const char *fmt, ...)
	NPU_PRINTF(3, 4);

/* Remember the first error; later calls keep going but write nothing. */
static void fail(struct trc *t, int err, const char *fmt, ...)
{
	va_list ap;

	if (t->err)
		return;
	t->err = err;
	va_start(ap, fmt);
	vsnprintf(t->errmsg, sizeof(t->errmsg), fmt, ap);
	va_end(ap);
}

/* Compress and digest n bytes. */
static void sink(struct trc *t, const char *p, size_t n)
{
	fnv_fold(&t->fnv, p, n);
	while (n && !t->err) {
		/* gzwrite takes an unsigned length and returns an int. */
		unsigned chunk = n > (1u << 30) ? 1u << 30 : (unsigned)n;

		if (gzwrite(t->gz, p, chunk) != (int)chunk) {
			int zerr;

			fail(t, NPU_EIO, "cannot write the trace: %s",
			     gzerror(t->gz, &zerr));
			return;
		}
		p += chunk;
		n -= chunk;
	}
}

/* Everything formatted so far goes to zlib (and the digest). */
static void flush_buf(struct trc *t)
{
	sink(t, t->buf, t->len);
	t->len = 0;
}

/* printf into the buffer; an event larger than the buffer goes straight
 * to zlib from a temporary allocation. */
static void emit(struct trc *t, const char *fmt, ...) NPU_PRINTF(2, 3);

static void emit(struct trc *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->err)
		return;
	va_start(ap, fmt);
	/*
	 * Try in place first: n is the full length even when it did not
	 * fit, and then the buffer is flushed and the event formatted again
	 * (va_start anew: a va_list cannot be reused once consumed).
	 */
	n = vsnprintf(t->buf + t->len, TRC_BUF - t->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fail(t, NPU_EINTERNAL, "trace event formatting failed");
		return;
	}
	if ((size_t)n < TRC_BUF - t->len) {
		t->len += (size_t)n;
		return;
	}
	flush_buf(t);
	if ((size_t)n < TRC_BUF) {
		va_start(ap, fmt);
		vsnprintf(t->buf, TRC_BUF, fmt, ap);
		va_end(ap);
		t->len = (size_t)n;
	} else {
		char *big = malloc((size_t)n + 1);

		if (!big) {
			fail(t, NPU_ENOMEM, "out of memory for a trace event");
			return;
		}
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		sink(t, big, (size_t)n);
		free(big);
	}
}

/*
 * Separator before each event: events are one per line.
 * Every event goes through sep exactly once, so n_events counts events
 * and the first one gets no comma.
 */
static const char *sep(struct trc *t)
{
	return t->n_events++ ? ",\n" : "";
}

/* A JSON-escaped copy of s in a caller buffer (names are short; a longer
 * one is cut at an escape boundary). */
static const char *esc(char *buf, size_t cap, const char *s)
{
	(void)trc_json_escape(buf, cap, s ? s : "");
	return buf;
}

/*
 * A timestamp in the viewer's microseconds: the cycle itself, or the
 * cycle's picoseconds at the clock printed as an exact decimal (integer
 * arithmetic: "%llu.%06llu" with trailing zeros trimmed).
 *
 * ps_per_cycle = 1000 / clock_ghz in double, so this is
 * round(cycle x 1000 / clock_ghz) (docs/formats.md "Time") up to the
 * product's rounding error, about cycle x 1000 x 2^-52 ps at 1 GHz:
 * far below 0.5 ps for any simulated run.
 */
static uint64_t to_ps(const struct trc *t, uint64_t cycle)
{
	return (uint64_t)llround((double)cycle * t->ps_per_cycle);
}

static const char *fmt_time(char *buf, size_t cap, uint64_t v_ps_or_cycles,
			    int real)
{
	unsigned long long us, frac;
	int digits = 6;

	if (!real) {
		snprintf(buf, cap, "%llu", (unsigned long long)v_ps_or_cycles);
		return buf;
	}
	/* 10^6 ps per us; e.g. 12000 ps -> "0.012", 1000000 ps -> "1". */
	us = v_ps_or_cycles / 1000000;
	frac = v_ps_or_cycles % 1000000;
	if (!frac) {
		snprintf(buf, cap, "%llu", us);
		return buf;
	}
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	snprintf(buf, cap, "%llu.%0*llu", us, digits, frac);
	return buf;
}

/* ---- open / close -------------------------------------------------------------*/

struct trc *trc_open(const char *path, double clock_ghz, struct diag *d)
{
	struct trc *t = calloc(1, sizeof(*t));
	char clk[40];
	int fd;

	if (!t || !(t->buf = malloc(TRC_BUF))) {
		free(t);
		(void)diag_error(d, diag_at_file(path, 0, 0), NPU_ENOMEM,
				 "out of memory for the trace buffer");
		return NULL;
	}
	if (fsout_open(&t->out, path, d) != 0) {
		free(t->buf);
		free(t);
		return NULL;
	}
	/*
	 * Nothing has been written through out.fp; the flush just makes
	 * sure its buffer is empty before zlib writes to the descriptor.
	 */
	fflush(t->out.fp);
	/* gzclose closes the descriptor it was given; fsout_commit closes
	 * its own FILE, so zlib gets a duplicate. */
	fd = dup(fileno(t->out.fp));
	if (fd < 0 || !(t->gz = gzdopen(fd, TRC_GZ_MODE))) {
		if (fd >= 0)
			close(fd);
		fsout_abort(&t->out);
		free(t->buf);
		free(t);
		(void)diag_error(d, diag_at_file(path, 0, 0), NPU_EIO,
				 "cannot start the gzip stream");
		return NULL;
	}
	/*
	 * zlib's input buffer: 128 KiB (default 8 KiB) so each 64 KiB block
	 * from flush_buf is compressed in one go.
	 */
	gzbuffer(t->gz, 128 * 1024);
	t->fnv = FNV_OFFSET;
	t->next_tid = 1;
	t->win_hi = UINT64_MAX;
	if (clock_ghz > 0 && isfinite(clock_ghz)) {
		t->ps_per_cycle = 1000.0 / clock_ghz;
		trc_json_double(clk, sizeof(clk), clock_ghz);
		emit(t, "{\"displayTimeUnit\":\"ns\",\"otherData\":{"
			"\"generator\":\"npusim\",\"clock_ghz\":%s,"
			"\"time\":\"real time at clock_ghz; args.cycle and "
			"args.cycles give cycles\"},\"traceEvents\":[\n", clk);
	} else {
		emit(t, "{\"otherData\":{\"generator\":\"npusim\","
			"\"time\":\"1 us in the viewer = 1 cycle\"},"
			"\"traceEvents\":[\n");
	}
	return t;
}

static void free_trc(struct trc *t)
{
	int i;

	for (i = 0; i < t->n_tracks; i++)
		free(t->tracks[i].name);
	for (i = 0; i < t->n_units; i++)
		free(t->units[i]);
	free(t->units);
	free(t->unit_hits);
	free(t->tracks);
	free(t->pids);
	free(t->buf);
	free(t);
}

int trc_close(struct trc *t, struct diag *d)
{
	char *path;
	int r, i;

	if (!t)
		return NPU_EINTERNAL;
	/* Copied: free_trc/fsout release the original before the report. */
	path = str_dup(t->out.path ? t->out.path : "-");
	/*
	 * Order matters: the trailer goes through the same buffer, the
	 * buffer to zlib, gzclose writes the gzip footer (CRC-32, length),
	 * and only then is the temporary file renamed into place.
	 */
	emit(t, "%s", trailer);
	flush_buf(t);
	if (gzclose(t->gz) != Z_OK && !t->err)
		fail(t, NPU_EIO, "cannot finish the gzip stream");
	t->gz = NULL;
	if (t->err) {
		r = diag_error(d, diag_at_file(path, 0, 0), t->err, "%s",
			       t->errmsg);
		fsout_abort(&t->out);
	} else {
		r = fsout_commit(&t->out, d);
		for (i = 0; r == 0 && i < t->n_units; i++)
			if (!t->unit_hits[i])
				diag_report(d, DIAG_WARNING,
					    diag_at_file(path, 0, 0), 0,
					    "--trace-units: '%s' matched no "
					    "unit that had events",
					    t->units[i]);
		if (r == 0 && t->n_overlap)
			diag_report(d, DIAG_WARNING, diag_at_file(path, 0, 0),
				    0, "%llu spans overlap on their track "
				    "(more than %d in flight on one unit); "
				    "viewers may hide them",
				    (unsigned long long)t->n_overlap,
				    TRC_MAX_LANES);
	}
	free(path);
	free_trc(t);
	return r;
}

void trc_abort(struct trc *t)
{
	if (!t)
		return;
	if (t->gz)
		gzclose(t->gz);
	fsout_abort(&t->out);
	free_trc(t);
}

uint64_t trc_digest(const struct trc *t)
{
	uint64_t h = t->fnv;

	fnv_fold(&h, t->buf, t->len);
	fnv_fold(&h, trailer, sizeof(trailer) - 1);
	return h;
}

uint64_t trc_n_events(const struct trc *t)
{
	return t->n_events;
}

/* ---- selection ------------------------------------------------------------------*/

static const char *const kind_names[TRC_N_KINDS] = {
	[TRC_KIND_CONTROL] = "control", [TRC_KIND_MATRIX] = "matrix",
	[TRC_KIND_VECTOR] = "vector", [TRC_KIND_DMA] = "dma",
	[TRC_KIND_SRAM] = "sram", [TRC_KIND_NOC] = "noc",
	[TRC_KIND_DRAM] = "dram", [TRC_KIND_OTHER] = "other",
};

const char *trc_kind_name(enum trc_kind k)
{
	return k >= 0 && k < TRC_N_KINDS ? kind_names[k] : "other";
}

void trc_set_window(struct trc *t, uint64_t start, uint64_t end)
{
	t->win_lo = start;
	t->win_hi = end;
}

int trc_set_units(struct trc *t, const char *list, struct diag *d)
{
	const char *p = list, *e;
	int n = 1, i;

	for (e = list; *e; e++)
		n += *e == ',';
	t->units = calloc((size_t)n, sizeof(*t->units));
	t->unit_hits = calloc((size_t)n, sizeof(*t->unit_hits));
	if (!t->units || !t->unit_hits)
		return diag_error(d, diag_nowhere(), NPU_ENOMEM,
				  "out of memory for --trace-units");
	for (i = 0; i < n; i++) {
		size_t len;

		e = strchr(p, ',');
		len = e ? (size_t)(e - p) : strlen(p);
		if (len == 0)
			return diag_error(d, diag_nowhere(), NPU_EUSAGE,
					  "--trace-units %s: empty unit name (expected a comma-separated list such as matrix,dma or core0.dma1)",
					  list);
		if (!(t->units[i] = malloc(len + 1)))
			return diag_error(d, diag_nowhere(), NPU_ENOMEM,
					  "out of memory for --trace-units");
		memcpy(t->units[i], p, len);
		t->units[i][len] = '\0';
		t->n_units = i + 1;
		p = e ? e + 1 : p + len;
	}
	return 0;
}

/*
 * Does the unit list select this track?  Every item that does counts a
 * hit (trc_close warns about items that never hit: likely typos).
 */
static int selected(struct trc *t, int core, enum trc_kind kind,
		    const char *name)
{
	char q[96];
	int i, on = 0;

	if (!t->units)
		return 1;
	for (i = 0; i < t->n_units; i++) {
		const char *u = t->units[i];
		int hit = strcmp(u, trc_kind_name(kind)) == 0 ||
			  strcmp(u, name) == 0;

		if (!hit && core >= 0) {
			snprintf(q, sizeof(q), "core%d", core);
			hit = strcmp(u, q) == 0;
			snprintf(q, sizeof(q), "core%d.%s", core, name);
			hit = hit || strcmp(u, q) == 0;
		} else if (!hit) {
			hit = strcmp(u, "chip") == 0;
		}
		if (hit) {
			t->unit_hits[i]++;
			on = 1;
		}
	}
	return on;
}

/*
 * Does an event over [start, end] touch the window?  A span touches it
 * when it overlaps [lo, hi); a zero-length span or an instant when it
 * lies inside.
 */
static int in_window(const struct trc *t, uint64_t start, uint64_t end)
{
	return start < t->win_hi && (end > t->win_lo || start >= t->win_lo);
}

/* ---- tracks ----------------------------------------------------------------------*/

/*
 * Where a unit's track sorts within its process: by kind in pipeline order
 * (enum trc_kind), then by index (dma0 before dma1), then lane.  The index
 * is capped at 9999 so that index * 100 + lane < 10^6 and a kind's tracks
 * never sort among the next kind's.
 */
static long sort_key(enum trc_kind kind, int index)
{
	if (index < 0)
		index = 0;
	if (index > 9999)
		index = 9999;
	return (long)kind * 1000000L + (long)index * 100L;
}

/*
 * Process metadata, once per pid, written with the process's first event.
 * process_sort_index = pid: cores in index order, then the chip process
 * (pid 100000).  A linear search: a trace has a few processes.
 */
static int need_process(struct trc *t, int pid, int core)
{
	int i;

	for (i = 0; i < t->n_pids; i++)
		if (t->pids[i] == pid)
			return 0;
	if (t->n_pids == t->cap_pids) {
		int cap = t->cap_pids ? t->cap_pids * 2 : 16;
		int *p = realloc(t->pids, (size_t)cap * sizeof(*p));

		if (!p) {
			fail(t, NPU_ENOMEM, "out of memory for trace metadata");
			return NPU_ENOMEM;
		}
		t->pids = p;
		t->cap_pids = cap;
	}
	t->pids[t->n_pids++] = pid;
	if (core == TRC_CHIP)
		emit(t, "%s{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\","
			"\"args\":{\"name\":\"chip\"}}", sep(t), pid);
	else
		emit(t, "%s{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\","
			"\"args\":{\"name\":\"core %d\"}}", sep(t), pid, core);
	emit(t, "%s{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_sort_index\","
		"\"args\":{\"sort_index\":%d}}", sep(t), pid, pid);
	return 0;
}

/* Thread metadata of lane k of track tr. */
static void lane_meta(struct trc *t, const struct track *tr, int k)
{
	char name[128];

	esc(name, sizeof(name), tr->name);
	if (k == 0)
		emit(t, "%s{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":"
			"\"thread_name\",\"args\":{\"name\":\"%s\"}}", sep(t),
		     tr->pid, tr->lanes[k].tid, name);
	else
		emit(t, "%s{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":"
			"\"thread_name\",\"args\":{\"name\":\"%s #%d\"}}",
		     sep(t), tr->pid, tr->lanes[k].tid, name, k + 1);
	emit(t, "%s{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":"
		"\"thread_sort_index\",\"args\":{\"sort_index\":%ld}}", sep(t),
	     tr->pid, tr->lanes[k].tid, tr->sort + k);
}

/*
 * Metadata a track needs before its first written event: its process,
 * and (thread = 1, for spans and instants) lane 0's name and order.
 * Written lazily, so a window or a unit list leaves out the tracks it
 * leaves empty, and counter-only tracks make no empty thread.
 */
static void track_meta(struct trc *t, struct track *tr, int thread)
{
	if (need_process(t, tr->pid, tr->core))
		return;
	if (thread && !tr->meta) {
		tr->meta = 1;
		lane_meta(t, tr, 0);
	}
}

static struct track *find_track(struct trc *t, int core, enum trc_kind kind,
				int index, int *id)
{
	int i;

	/* Linear in the tracks (a few per core); units look their track
	 * up once and keep the id. */
	for (i = 0; i < t->n_tracks; i++)
		if (t->tracks[i].core == core && t->tracks[i].kind == kind &&
		    t->tracks[i].index == index) {
			if (id)
				*id = i;
			return &t->tracks[i];
		}
	return NULL;
}

int trc_track(struct trc *t, int core, enum trc_kind kind, int index,
	      const char *name)
{
	struct track *tr;
	int id, pid = core < 0 ? TRC_CHIP_PID : core;

	if (core < 0)
		core = TRC_CHIP;
	if (kind < 0 || kind >= TRC_N_KINDS)
		kind = TRC_KIND_OTHER;
	if (find_track(t, core, kind, index, &id))
		return id;
	if (t->n_tracks == t->cap_tracks) {
		int cap = t->cap_tracks ? t->cap_tracks * 2 : 16;
		struct track *p = realloc(t->tracks, (size_t)cap * sizeof(*p));

		if (!p)
			return NPU_ENOMEM;
		t->tracks = p;
		t->cap_tracks = cap;
	}
	tr = &t->tracks[t->n_tracks];
	memset(tr, 0, sizeof(*tr));
	if (!(tr->name = str_dup(name ? name : "")))
		return NPU_ENOMEM;
	tr->core = core;
	tr->kind = kind;
	tr->index = index;
	tr->pid = pid;
	tr->sort = sort_key(kind, index);
	tr->on = selected(t, core, kind, tr->name);
	tr->n_lanes = 1;
	tr->lanes[0].tid = t->next_tid++;
	return t->n_tracks++;
}

static struct track *get_track(struct trc *t, int track)
{
	if (track < 0 || track >= t->n_tracks) {
		fail(t, NPU_EINTERNAL, "trace event on unknown track %d",
		     track);
		return NULL;
	}
	return &t->tracks[track];
}

int trc_want(const struct trc *t, int track, uint64_t start, uint64_t end)
{
	return !t->err && track >= 0 && track < t->n_tracks &&
	       t->tracks[track].on && in_window(t, start, end);
}

/* The lane for a span starting at 'start' (see trace.h, "Overlap"). */
static struct lane *pick_lane(struct trc *t, struct track *tr, uint64_t start)
{
	int k, best = 0;

	for (k = 0; k < tr->n_lanes; k++)
		if (tr->lanes[k].last_end <= start)
			return &tr->lanes[k];
	if (tr->n_lanes < TRC_MAX_LANES) {
		k = tr->n_lanes++;
		tr->lanes[k].tid = t->next_tid++;
		tr->lanes[k].last_end = 0;
		lane_meta(t, tr, k);
		return &tr->lanes[k];
	}
	/*
	 * Every lane busy: overlap on the lane that frees up first.
	 * Deterministic: the same span sequence always picks the same lanes
	 * (lowest index on ties), so traces stay byte-identical.
	 */
	for (k = 1; k < tr->n_lanes; k++)
		if (tr->lanes[k].last_end < tr->lanes[best].last_end)
			best = k;
	t->n_overlap++;
	return &tr->lanes[best];
}

/* ---- events ----------------------------------------------------------------------*/

/*
 * The flow members of a span ("bind_id" and its direction, Perfetto's
 * flow events v2), or "" when there is none or its start was dropped:
 * the starting span's track must exist, be selected, and its span touch
 * the window.
 */
static const char *flow_json(struct trc *t, const struct trc_flow *f,
			     char *buf, size_t cap)
{
	const struct track *from;

	buf[0] = '\0';
	if (!f || !f->id)
		return buf;
	if (!f->out) {
		from = find_track(t, f->from_core < 0 ? TRC_CHIP : f->from_core,
				  f->from_kind, f->from_index, NULL);
		if (!from || !from->on ||
		    !in_window(t, f->from_start, f->from_end))
			return buf;
	}
	snprintf(buf, cap, ",\"bind_id\":%llu,\"%s\":true",
		 (unsigned long long)f->id, f->out ? "flow_out" : "flow_in");
	return buf;
}

void trc_span_flow(struct trc *t, int track, uint64_t start, uint64_t end,
		   const char *name, const char *args_json,
		   const struct trc_flow *flow)
{
	struct track *tr = get_track(t, track);
	char ts[32], dur[32], nm[128], fl[64];
	struct lane *ln;
	int real = t->ps_per_cycle > 0;

	if (!tr)
		return;
	if (end < start) {
		fail(t, NPU_EINTERNAL, "span '%s' on %s ends (cycle %llu) "
		     "before it starts (cycle %llu)", name ? name : "",
		     tr->name, (unsigned long long)end,
		     (unsigned long long)start);
		return;
	}
	if (!tr->on || !in_window(t, start, end))
		return;
	track_meta(t, tr, 1);
	ln = pick_lane(t, tr, start);
	if (end > ln->last_end)
		ln->last_end = end;
	/* dur is the difference of the rounded ends, so that back-to-back
	 * spans stay back to back in the viewer. */
	fmt_time(ts, sizeof(ts), real ? to_ps(t, start) : start, real);
	fmt_time(dur, sizeof(dur),
		 real ? to_ps(t, end) - to_ps(t, start) : end - start, real);
	/*
	 * args always start with the exact cycles ("cycle", "cycles"); the
	 * caller's members follow after a comma.
	 */
	emit(t, "%s{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%s,\"dur\":%s,"
		"\"name\":\"%s\"%s,\"args\":{\"cycle\":%llu,\"cycles\":%llu%s%s}}",
	     sep(t), tr->pid, ln->tid, ts, dur, esc(nm, sizeof(nm), name),
	     flow_json(t, flow, fl, sizeof(fl)),
	     (unsigned long long)start, (unsigned long long)(end - start),
	     args_json && *args_json ? "," : "", args_json ? args_json : "");
}

void trc_span(struct trc *t, int track, uint64_t start, uint64_t end,
	      const char *name, const char *args_json)
{
	trc_span_flow(t, track, start, end, name, args_json, NULL);
}

void trc_instant(struct trc *t, int track, uint64_t when, const char *name,
		 const char *args_json)
{
	struct track *tr = get_track(t, track);
	char ts[32], nm[128];
	int real = t->ps_per_cycle > 0;

	if (!tr || !tr->on || !in_window(t, when, when))
		return;
	track_meta(t, tr, 1);
	fmt_time(ts, sizeof(ts), real ? to_ps(t, when) : when, real);
	/* "s":"t": thread scope, drawn on the unit's own track (lane 0). */
	emit(t, "%s{\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%d,\"ts\":%s,"
		"\"name\":\"%s\",\"args\":{\"cycle\":%llu%s%s}}", sep(t),
	     tr->pid, tr->lanes[0].tid, ts, esc(nm, sizeof(nm), name),
	     (unsigned long long)when, args_json && *args_json ? "," : "",
	     args_json ? args_json : "");
}

/*
 * Counter events have no tid: Perfetto groups them per process under the
 * event name, so the unit's name is the event name and the counter
 * name the args key ("dma0" { "queue": 3 }).
 */
void trc_counter(struct trc *t, int track, uint64_t when, const char *name,
		 double value)
{
	struct track *tr = get_track(t, track);
	char ts[32], unit[128], key[128], val[40];
	int real = t->ps_per_cycle > 0;

	if (!tr || !tr->on || !in_window(t, when, when))
		return;
	track_meta(t, tr, 0);
	fmt_time(ts, sizeof(ts), real ? to_ps(t, when) : when, real);
	trc_json_double(val, sizeof(val), value);
	emit(t, "%s{\"ph\":\"C\",\"pid\":%d,\"ts\":%s,\"name\":\"%s\","
		"\"args\":{\"%s\":%s}}", sep(t), tr->pid, ts,
	     esc(unit, sizeof(unit), tr->name), esc(key, sizeof(key), name),
	     val);
}
