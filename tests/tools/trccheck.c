/*
 * trccheck - validate an npusim trace (tests/golden/traces).
 *
 *   trccheck FILE.json.gz [--window S:E] [--tracks A,B,...]
 *            [--need-instant NAME]... [--min-flows N] [--min-counters N]
 *            [--stats FILE [--clip S:E]]
 *
 * Decompresses (zlib), parses (json-c, independent of the writer in
 * trace/trace.c) and checks what Perfetto relies on:
 *   - the top level is an object with a "traceEvents" array;
 *   - every event has the fields its phase requires (M: name, pid, args,
 *     and tid for thread metadata; X: pid, tid, ts, dur >= 0, name,
 *     args.cycle, args.cycles; i: pid, tid, ts, name, scope; C: pid, ts,
 *     name, args whose values are all numbers); no other phase appears;
 *   - every (pid, tid) with slices or instants has a thread_name;
 *   - slices on one track nest or are disjoint (checked on the exact
 *     cycles in args);
 *   - flows (bind_id with flow_out / flow_in) connect existing slices:
 *     each id starts on exactly one slice, every end has that start, and
 *     no flow ends before it starts.
 * Options add assertions: every span touches, and every instant and
 * counter sample lies in, cycles [S, E) (a counter sample's cycle is its
 * ts x 1000 x otherData.clock_ghz); every track name (lanes "x #2" count
 * as "x") is one of a list; an instant named NAME exists; at least N
 * flows end / N counter samples exist.  Prints one summary line
 * ("events N slices N instants N counters N flows N (N unmatched starts)")
 * and exits 0, or prints every problem (up to 20) and exits 1.
 *
 * --stats FILE writes what the golden tests tie to the run's counters:
 * one tab-separated line per (phase, track, name),
 *
 *   PHASE  TRACK  NAME  N  CYCLES  FIRST  LAST  END
 *
 * PHASE X (slices), i (instants), C (counter samples) or f (flow ends,
 * counted on the slice they end on); TRACK the process name without
 * spaces, a dot and the thread name without its lane suffix
 * ("core0.matrix", "core1.regions", "chip.dram.ch0"; a counter's own
 * name stands for the thread); N the events, CYCLES the sum of their
 * args.cycles, FIRST and LAST the earliest and latest start, END the
 * latest end (all in cycles).  With --clip S:E only the events that
 * would pass --window S:E are counted (the slices that touch [S, E)).
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAX_PROBLEMS 20 /* problems printed before giving up */

/* One slice, for the nesting check. */
struct slice {
	long long pid, tid;     /* track */
	uint64_t start, end;    /* cycles */
};

/* One flow end point. */
struct flow {
	uint64_t id;            /* bind_id */
	int out;                /* 1 start, 0 end */
	uint64_t cycle;         /* slice start */
};

/* A (pid, tid) that has thread_name metadata, with its name. */
struct thread {
	long long pid, tid;
	char name[96];
};

/* A process (pid) with process_name metadata, spaces dropped. */
struct process {
	long long pid;
	char name[64];
};

/* One line of --stats: the events of one phase, track and name. */
struct line {
	char phase;             /* X, i, C or f */
	char track[160];        /* "core0.matrix" */
	char name[160];         /* slice, instant or counter name */
	uint64_t n, cycles;     /* events, sum of args.cycles */
	uint64_t first, last;   /* earliest and latest start */
	uint64_t end;           /* latest end */
};

static struct line *lines;     /* --stats lines, in order of appearance */
static size_t n_lines, cap_lines;

static int n_problems;

static void problem(long i, const char *fmt, const char *what)
{
	if (++n_problems <= MAX_PROBLEMS) {
		fprintf(stderr, "trccheck: event %ld: ", i);
		fprintf(stderr, fmt, what);
		fputc('\n', stderr);
	}
}

/* The whole decompressed file, NUL-terminated; NULL on error. */
static char *gunzip(const char *path, size_t *len)
{
	gzFile gz = gzopen(path, "rb");
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap + 1);
	int r;

	if (!gz || !buf) {
		free(buf);
		if (gz)
			gzclose(gz);
		return NULL;
	}
	while ((r = gzread(gz, buf + n, (unsigned)(cap - n))) > 0) {
		n += (size_t)r;
		if (n == cap) {
			char *b = realloc(buf, 2 * cap + 1);

			if (!b) {
				free(buf);
				gzclose(gz);
				return NULL;
			}
			buf = b;
			cap *= 2;
		}
	}
	if (r < 0 || gzclose(gz) != Z_OK) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

static json_object *field(json_object *o, const char *k)
{
	json_object *v;

	return json_object_object_get_ex(o, k, &v) ? v : NULL;
}

static int is_int(json_object *v)
{
	return v && json_object_is_type(v, json_type_int);
}

static int is_num(json_object *v)
{
	return v && (json_object_is_type(v, json_type_int) ||
		     json_object_is_type(v, json_type_double));
}

static int is_str(json_object *v)
{
	return v && json_object_is_type(v, json_type_string);
}

static int cmp_slice(const void *pa, const void *pb)
{
	const struct slice *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	/* Longer first: an enclosing slice precedes what it encloses. */
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	return 0;
}

static int cmp_flow(const void *pa, const void *pb)
{
	const struct flow *a = pa, *b = pb;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return b->out - a->out; /* the start first */
}

/* Is name (lane suffix " #k" dropped) an item of the list? */
static int listed(const char *list, const char *name)
{
	size_t n = strcspn(name, "#");
	const char *p = list;

	while (n && name[n - 1] == ' ')
		n--;
	while (*p) {
		size_t k = strcspn(p, ",");

		if (k == n && strncmp(p, name, n) == 0)
			return 1;
		p += k + (p[k] == ',');
	}
	return 0;
}

/* Does [start, end) pass --window lo:hi?  A span must touch it; a
 * zero-length one (an instant) must lie in it. */
static int touches(uint64_t start, uint64_t end, uint64_t lo, uint64_t hi)
{
	return (end > lo || (start == end && start >= lo)) && start < hi;
}

/* A counter sample's cycle: ts is in microseconds at clock_ghz. */
static uint64_t ts_cycle(json_object *ts, double ghz)
{
	double c = json_object_get_double(ts) * 1000.0 * ghz;

	return c > 0 ? (uint64_t)(c + 0.5) : 0;
}

/* Count one event into its --stats line; 0, or -1 out of memory. */
static int line_add(char phase, const char *track, const char *name,
		    uint64_t start, uint64_t end)
{
	struct line *st;
	size_t i;

	for (i = 0; i < n_lines; i++)
		if (lines[i].phase == phase && strcmp(lines[i].track, track) == 0 &&
		    strcmp(lines[i].name, name) == 0)
			break;
	if (i == n_lines) {
		if (n_lines == cap_lines) {
			size_t cap = cap_lines ? 2 * cap_lines : 64;
			struct line *p = realloc(lines, cap * sizeof(*p));

			if (!p)
				return -1;
			lines = p;
			cap_lines = cap;
		}
		st = &lines[n_lines++];
		memset(st, 0, sizeof(*st));
		st->phase = phase;
		snprintf(st->track, sizeof(st->track), "%s", track);
		snprintf(st->name, sizeof(st->name), "%s", name);
		st->first = start;
	}
	st = &lines[i];
	st->n++;
	st->cycles += end - start;
	if (start < st->first)
		st->first = start;
	if (start > st->last)
		st->last = start;
	if (end > st->end)
		st->end = end;
	return 0;
}

/* The --stats track of an event: "PROCESS.THREAD" (see the top). */
static void track_name(char *buf, size_t size, long long pid, const char *thread,
		       const struct process *pr, size_t n_pr)
{
	size_t i, n = strcspn(thread, "#");

	while (n && thread[n - 1] == ' ')
		n--;
	for (i = 0; i < n_pr && pr[i].pid != pid; i++)
		;
	if (i < n_pr)
		snprintf(buf, size, "%s.%.*s", pr[i].name, (int)n, thread);
	else
		snprintf(buf, size, "pid%lld.%.*s", pid, (int)n, thread);
}

/* Pass 2 of --stats: every slice, instant, counter sample and flow end of
 * the events that touch [lo, hi), by phase, track and name. */
static int write_stats(const char *path, json_object *evs, double ghz,
		       const struct thread *th, size_t n_th,
		       const struct process *pr, size_t n_pr,
		       uint64_t lo, uint64_t hi)
{
	size_t i, j, n = json_object_array_length(evs);
	char track[160];
	FILE *f;

	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(evs, i), *args = field(e, "args");
		const char *p = json_object_get_string(field(e, "ph"));
		const char *nm = json_object_get_string(field(e, "name"));
		long long pid = json_object_get_int64(field(e, "pid"));
		uint64_t start, end;

		if (!p || !nm || !args || strcmp(p, "M") == 0)
			continue;
		if (strcmp(p, "C") == 0) {
			start = end = ts_cycle(field(e, "ts"), ghz);
			track_name(track, sizeof(track), pid, nm, pr, n_pr);
			if (touches(start, end, lo, hi) && line_add('C', track, nm, start, end))
				return -1;
			continue;
		}
		for (j = 0; j < n_th; j++)
			if (th[j].pid == pid && th[j].tid == json_object_get_int64(field(e, "tid")))
				break;
		if (j == n_th)
			continue; /* reported by the checks */
		track_name(track, sizeof(track), pid, th[j].name, pr, n_pr);
		start = (uint64_t)json_object_get_int64(field(args, "cycle"));
		end = start + (p[0] == 'X' ? (uint64_t)json_object_get_int64(field(args, "cycles")) : 0);
		if (!touches(start, end, lo, hi))
			continue;
		if (line_add(p[0], track, nm, start, end))
			return -1;
		if (p[0] == 'X' && json_object_get_boolean(field(e, "flow_in")) &&
		    line_add('f', track, nm, start, end))
			return -1;
	}
	if (!(f = fopen(path, "w")))
		return -1;
	for (i = 0; i < n_lines; i++)
		fprintf(f, "%c\t%s\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\n", lines[i].phase,
			lines[i].track, lines[i].name, (unsigned long long)lines[i].n,
			(unsigned long long)lines[i].cycles,
			(unsigned long long)lines[i].first,
			(unsigned long long)lines[i].last,
			(unsigned long long)lines[i].end);
	return fclose(f) ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *path = NULL, *tracks = NULL, *need[16], *stats_path = NULL;
	int n_need = 0, found[16] = { 0 };
	long min_flows = 0, min_counters = 0;
	unsigned long long win_lo = 0, win_hi = UINT64_MAX;
	unsigned long long clip_lo = 0, clip_hi = UINT64_MAX;
	double ghz = 1;
	struct slice *sl = NULL;
	struct flow *fl = NULL;
	struct thread *th = NULL;
	struct process *pr = NULL;
	size_t n_sl = 0, n_fl = 0, n_th = 0, n_pr = 0, len, i, j;
	long n_inst = 0, n_ctr = 0, n_ends = 0, n_unmatched = 0, n_ev;
	json_object *root, *evs;
	char *txt;

	for (i = 1; i < (size_t)argc; i++) {
		const char *a = argv[i], *v = i + 1 < (size_t)argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--window") == 0 && v) {
			if (sscanf(v, "%llu:%llu", &win_lo, &win_hi) != 2)
				return fprintf(stderr, "trccheck: bad --window\n"), 2;
			i++;
		} else if (strcmp(a, "--clip") == 0 && v) {
			if (sscanf(v, "%llu:%llu", &clip_lo, &clip_hi) != 2)
				return fprintf(stderr, "trccheck: bad --clip\n"), 2;
			i++;
		} else if (strcmp(a, "--stats") == 0 && v) {
			stats_path = v;
			i++;
		} else if (strcmp(a, "--tracks") == 0 && v) {
			tracks = v;
			i++;
		} else if (strcmp(a, "--need-instant") == 0 && v && n_need < 16) {
			need[n_need++] = v;
			i++;
		} else if (strcmp(a, "--min-flows") == 0 && v) {
			min_flows = atol(v);
			i++;
		} else if (strcmp(a, "--min-counters") == 0 && v) {
			min_counters = atol(v);
			i++;
		} else if (a[0] != '-' && !path) {
			path = a;
		} else {
			fprintf(stderr, "usage: trccheck FILE.json.gz [--window S:E] [--tracks LIST] [--need-instant NAME]... [--min-flows N] [--min-counters N] [--stats FILE [--clip S:E]]\n");
			return 2;
		}
	}
	if (!path)
		return fprintf(stderr, "trccheck: no file\n"), 2;
	if (!(txt = gunzip(path, &len))) {
		fprintf(stderr, "trccheck: %s: not a readable gzip file\n", path);
		return 1;
	}
	root = json_tokener_parse(txt);
	free(txt);
	if (!root || !json_object_is_type(root, json_type_object) ||
	    !(evs = field(root, "traceEvents")) ||
	    !json_object_is_type(evs, json_type_array)) {
		fprintf(stderr, "trccheck: %s: not a JSON object with a traceEvents array\n", path);
		json_object_put(root);
		return 1;
	}
	{
		json_object *od = field(root, "otherData");

		if (od && is_num(field(od, "clock_ghz")))
			ghz = json_object_get_double(field(od, "clock_ghz"));
	}
	n_ev = (long)json_object_array_length(evs);
	sl = calloc((size_t)n_ev + 1, sizeof(*sl));
	fl = calloc((size_t)n_ev + 1, sizeof(*fl));
	th = calloc((size_t)n_ev + 1, sizeof(*th));
	pr = calloc((size_t)n_ev + 1, sizeof(*pr));
	if (!sl || !fl || !th || !pr)
		return fprintf(stderr, "trccheck: out of memory\n"), 1;

	/* Pass 1: fields per phase; collect slices, flows, thread names. */
	for (i = 0; i < (size_t)n_ev; i++) {
		json_object *e = json_object_array_get_idx(evs, i);
		json_object *ph = field(e, "ph"), *args = field(e, "args");
		const char *p;

		if (!is_str(ph)) {
			problem((long)i, "%s", "no \"ph\"");
			continue;
		}
		p = json_object_get_string(ph);
		if (!is_int(field(e, "pid")) || !is_str(field(e, "name")))
			problem((long)i, "phase %s without an integer pid and a name", p);
		if (strcmp(p, "M") == 0) {
			const char *nm = json_object_get_string(field(e, "name"));

			if (!args || !json_object_is_type(args, json_type_object))
				problem((long)i, "%s", "metadata without args");
			else if (strncmp(nm, "thread_", 7) == 0 && !is_int(field(e, "tid")))
				problem((long)i, "%s without tid", nm);
			else if (strstr(nm, "_name") && !is_str(field(args, "name")))
				problem((long)i, "%s without args.name", nm);
			else if (strstr(nm, "sort_index") && !is_int(field(args, "sort_index")))
				problem((long)i, "%s without an integer args.sort_index", nm);
			else if (strcmp(nm, "thread_name") == 0) {
				th[n_th].pid = json_object_get_int64(field(e, "pid"));
				th[n_th].tid = json_object_get_int64(field(e, "tid"));
				snprintf(th[n_th].name, sizeof(th[n_th].name), "%s",
					 json_object_get_string(field(args, "name")));
				if (tracks && !listed(tracks, th[n_th].name))
					problem((long)i, "track '%s' not in --tracks", th[n_th].name);
				n_th++;
			} else if (strcmp(nm, "process_name") == 0) {
				const char *q = json_object_get_string(field(args, "name"));
				size_t k = 0;

				pr[n_pr].pid = json_object_get_int64(field(e, "pid"));
				for (; *q && k + 1 < sizeof(pr[n_pr].name); q++)
					if (*q != ' ')
						pr[n_pr].name[k++] = *q;
				pr[n_pr].name[k] = '\0';
				n_pr++;
			}
		} else if (strcmp(p, "X") == 0) {
			json_object *bid = field(e, "bind_id");
			struct slice *s = &sl[n_sl];

			if (!is_int(field(e, "tid")) || !is_num(field(e, "ts")) ||
			    !is_num(field(e, "dur")) ||
			    json_object_get_double(field(e, "dur")) < 0 || !args ||
			    !is_int(field(args, "cycle")) || !is_int(field(args, "cycles"))) {
				problem((long)i, "%s", "X without tid, ts, dur >= 0, args.cycle, args.cycles");
				continue;
			}
			s->pid = json_object_get_int64(field(e, "pid"));
			s->tid = json_object_get_int64(field(e, "tid"));
			s->start = (uint64_t)json_object_get_int64(field(args, "cycle"));
			s->end = s->start + (uint64_t)json_object_get_int64(field(args, "cycles"));
			if (!touches(s->start, s->end, win_lo, win_hi))
				problem((long)i, "%s", s->start >= win_hi ? "span after --window" :
					"span before --window");
			n_sl++;
			if (bid) {
				int out = json_object_get_boolean(field(e, "flow_out"));
				int in = json_object_get_boolean(field(e, "flow_in"));

				if (!is_int(bid) || out == in) {
					problem((long)i, "%s", "bind_id without exactly one of flow_out / flow_in");
					continue;
				}
				fl[n_fl].id = (uint64_t)json_object_get_int64(bid);
				fl[n_fl].out = out;
				fl[n_fl].cycle = s->start;
				n_fl++;
			}
		} else if (strcmp(p, "i") == 0) {
			json_object *sc = field(e, "s");
			uint64_t c;

			if (!is_int(field(e, "tid")) || !is_num(field(e, "ts")) ||
			    !is_str(sc) || !args || !is_int(field(args, "cycle"))) {
				problem((long)i, "%s", "instant without tid, ts, s, args.cycle");
				continue;
			}
			c = (uint64_t)json_object_get_int64(field(args, "cycle"));
			if (c < win_lo || c >= win_hi)
				problem((long)i, "%s", "instant outside --window");
			for (j = 0; j < (size_t)n_need; j++)
				if (strcmp(json_object_get_string(field(e, "name")), need[j]) == 0)
					found[j] = 1;
			/* Instants sit on tracks too: a zero-length slice. */
			sl[n_sl].pid = json_object_get_int64(field(e, "pid"));
			sl[n_sl].tid = json_object_get_int64(field(e, "tid"));
			sl[n_sl].start = sl[n_sl].end = c;
			n_sl++;
			n_inst++;
		} else if (strcmp(p, "C") == 0) {
			uint64_t c;
			int k = 0;

			if (!is_num(field(e, "ts")) || !args ||
			    !json_object_is_type(args, json_type_object)) {
				problem((long)i, "%s", "counter without ts and args");
				continue;
			}
			json_object_object_foreach(args, key, val) {
				if (!is_num(val))
					problem((long)i, "counter value '%s' is not a number", key);
				k++;
			}
			if (!k)
				problem((long)i, "%s", "counter without a value");
			c = ts_cycle(field(e, "ts"), ghz);
			if (c < win_lo || c >= win_hi)
				problem((long)i, "%s", "counter sample outside --window");
			n_ctr++;
		} else {
			problem((long)i, "unexpected phase '%s'", p);
		}
	}

	/* Every track with events is named. */
	for (i = 0; i < n_sl; i++) {
		for (j = 0; j < n_th; j++)
			if (th[j].pid == sl[i].pid && th[j].tid == sl[i].tid)
				break;
		if (j == n_th) {
			char w[64];

			snprintf(w, sizeof(w), "%lld/%lld", sl[i].pid, sl[i].tid);
			problem(-1, "track pid/tid %s has events but no thread_name", w);
			break;
		}
	}

	/* Nesting: per track, sorted by start (longest first); a stack of
	 * open slices; each slice must end within the one enclosing it. */
	qsort(sl, n_sl, sizeof(*sl), cmp_slice);
	{
		size_t *stack = malloc((n_sl + 1) * sizeof(*stack)), top = 0;

		for (i = 0; i < n_sl && stack; i++) {
			if (i && (sl[i].pid != sl[i - 1].pid || sl[i].tid != sl[i - 1].tid))
				top = 0;
			while (top && sl[stack[top - 1]].end <= sl[i].start)
				top--;
			if (top && sl[i].end > sl[stack[top - 1]].end) {
				char w[128];

				snprintf(w, sizeof(w), "pid %lld tid %lld: [%llu, %llu) and [%llu, %llu)",
					 sl[i].pid, sl[i].tid,
					 (unsigned long long)sl[stack[top - 1]].start,
					 (unsigned long long)sl[stack[top - 1]].end,
					 (unsigned long long)sl[i].start,
					 (unsigned long long)sl[i].end);
				problem(-1, "slices overlap on %s", w);
			}
			stack[top++] = i;
		}
		free(stack);
	}

	/* Flows: sorted by id, the start first. */
	qsort(fl, n_fl, sizeof(*fl), cmp_flow);
	for (i = 0; i < n_fl; i = j) {
		int outs = 0;
		uint64_t from = 0;
		char w[48];

		for (j = i; j < n_fl && fl[j].id == fl[i].id; j++) {
			if (fl[j].out) {
				outs++;
				from = fl[j].cycle;
				continue;
			}
			n_ends++;
			snprintf(w, sizeof(w), "%llu", (unsigned long long)fl[j].id);
			if (!outs)
				problem(-1, "flow %s ends on a slice but starts nowhere", w);
			else if (fl[j].cycle < from)
				problem(-1, "flow %s ends before it starts", w);
		}
		snprintf(w, sizeof(w), "%llu", (unsigned long long)fl[i].id);
		if (outs > 1)
			problem(-1, "flow %s starts on several slices", w);
		if (outs && j - i == 1)
			n_unmatched++;
	}

	for (i = 0; i < (size_t)n_need; i++)
		if (!found[i])
			problem(-1, "no instant named '%s'", need[i]);
	if (n_ends < min_flows)
		problem(-1, "%s", "fewer flows than --min-flows");
	if (n_ctr < min_counters)
		problem(-1, "%s", "fewer counter samples than --min-counters");
	if (stats_path && !n_problems &&
	    write_stats(stats_path, evs, ghz, th, n_th, pr, n_pr, clip_lo, clip_hi)) {
		fprintf(stderr, "trccheck: %s: cannot write the stats\n", stats_path);
		n_problems++;
	}
	json_object_put(root);
	free(sl);
	free(fl);
	free(th);
	free(pr);
	free(lines);
	if (n_problems) {
		fprintf(stderr, "trccheck: %s: %d problem%s\n", path, n_problems,
			n_problems == 1 ? "" : "s");
		return 1;
	}
	printf("events %ld slices %zu instants %ld counters %ld flows %ld (%ld unmatched starts)\n",
	       n_ev, n_sl - (size_t)n_inst, n_inst, n_ctr, n_ends, n_unmatched);
	return 0;
}
