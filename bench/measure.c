/*
 * measure.c - run one command several times and report its median host
 * time and peak memory, for the benchmark suite (bench/run.sh).
 *
 *   measure N cmd [args...]
 *
 * prints "median_s min_s max_s peak_kib": wall-clock seconds of each run
 * (fork to exit, CLOCK_MONOTONIC) and the largest resident set any run
 * reached (wait4's ru_maxrss).  The command's output goes to /dev/null; a
 * run that fails makes measure fail.  The median, not the mean: one run
 * disturbed by another process on a shared machine should not move it.
 * Written here rather than using GNU time because it is not installed
 * everywhere and gives neither medians nor repeat counts.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	double t[64];
	long peak = 0;
	int n, i;

	if (argc < 3 || (n = atoi(argv[1])) < 1 || n > 64) {
		fprintf(stderr, "usage: measure N(1-64) cmd [args...]\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		struct rusage ru;
		double t0 = now_s();
		int st;
		pid_t p = fork();

		if (p < 0) {
			perror("measure: fork");
			return 1;
		}
		if (p == 0) {
			int fd = open("/dev/null", O_WRONLY);

			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		if (wait4(p, &st, 0, &ru) < 0) {
			perror("measure: wait4");
			return 1;
		}
		t[i] = now_s() - t0;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "measure: %s failed (status %d)\n", argv[2], st);
			return 1;
		}
		if (ru.ru_maxrss > peak)
			peak = ru.ru_maxrss;
	}
	qsort(t, (size_t)n, sizeof(t[0]), cmp_d);
	printf("%.4f %.4f %.4f %ld\n", n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2,
	       t[0], t[n - 1], peak);
	return 0;
}
