/*
 * progress.c - the progress line (progress.h).
 *
 * The line is redrawn in place: "\r" back to column 0, the text, then
 * "\033[K" (erase to the end of the line) so a shorter line leaves no
 * tail of a longer one.  Clearing is "\r\033[K".  The rate is over the
 * last interval, so it follows phases of the program rather than
 * averaging them away.
 */
#include "progress.h"

#include <inttypes.h>
#include <time.h>

static double mono_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* diag hook: a message is about to be printed. */
static void clear_hook(void *ctx)
{
	progress_clear(ctx);
}

void progress_init(struct progress *p, FILE *fp, struct diag *d)
{
	p->fp = fp;
	p->clock = mono_seconds;
	p->start = -1;
	p->last = 0;
	p->last_cycle = 0;
	p->shown = 0;
	if (fp && d) {
		d->on_print = clear_hook;
		d->on_print_ctx = p;
	}
}

/* 12345678 -> "12.3M": rates and counts at a glance. */
static void si(char *buf, size_t n, double v)
{
	static const char sfx[] = " kMGTPE";
	int k = 0;

	while (v >= 1000 && k < 6) {
		v /= 1000;
		k++;
	}
	if (k)
		snprintf(buf, n, "%.1f%c", v, sfx[k]);
	else
		snprintf(buf, n, "%.0f", v);
}

void progress_update(void *ctx, struct run *r)
{
	struct progress *p = ctx;
	struct run_status st;
	char rate[16], insns[16];
	double now;

	if (!p->fp)
		return;
	now = p->clock();
	if (p->start < 0) {
		p->start = p->last = now;
		return;
	}
	if (now - p->start < PROGRESS_DELAY || now - p->last < PROGRESS_EVERY)
		return;
	run_status(r, &st);
	si(rate, sizeof(rate), (double)(st.cycle - p->last_cycle) / (now - p->last));
	si(insns, sizeof(insns), (double)st.insns);
	fprintf(p->fp, "\rnpusim: cycle %" PRIu64 ", %s cycles/s, %s insns; cores: %d running, %d waiting, %d done\033[K",
		(uint64_t)st.cycle, rate, insns, st.n_running, st.n_waiting,
		st.n_done);
	fflush(p->fp);
	p->last = now;
	p->last_cycle = st.cycle;
	p->shown = 1;
}

void progress_clear(struct progress *p)
{
	if (!p->fp || !p->shown)
		return;
	fputs("\r\033[K", p->fp);
	fflush(p->fp);
	p->shown = 0;
}
