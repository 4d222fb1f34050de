// SPDX-License-Identifier: GPL-2.0
/*
 * The PAPI high-level drop-in (user/papi_hl.c, libpmuctl-papi-hl) on any
 * host, against the made-up module of fake_dev.h.  The library sets
 * itself up when the program starts (a constructor), so each case runs in
 * a child that execs this program again with the case in $PAPI_HL_TEST:
 * there a constructor of the test's own, run first (priority 101), makes
 * the fake module (counters no PMU has: every read faults into the
 * emulation, which the fake answers with values the case chooses), and
 * the case's calls report through the exit status.  (SKIP where such an
 * rdpmc does not fault.)
 *
 *  - handover: the session "pmuctl stat --regions" hands over: begin/end
 *    add the counts, PAPI_hl_read adds the counts so far as a call and
 *    goes on, an end without begin is PAPI_ENOTRUN and counted,
 *    PAPI_hl_stop stops;
 *  - own: no hand-over, $PAPI_EVENTS: a task-scope session of its own
 *    (PROGRAM with INHERIT, START), its JSON report written at exit in
 *    $PAPI_OUTPUT_DIRECTORY/papi_hl_output/;
 *  - bad: an unknown event in $PAPI_EVENTS: one line naming it, every
 *    call PAPI_OK and nothing programmed;
 *  - none: no hand-over, no device: every call PAPI_OK, silent.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "fake_dev.h"
#include "papi-hl/papi.h"

#define CASE_ENV	"PAPI_HL_TEST"

static void set_values(uint64_t a)
{
	fake.values[0] = a;
	fake.values[1] = 2 * a;
	fake.values[2] = 3 * a;
}

/* Before the drop-in's constructor: the fake module. */
static void __attribute__((constructor(101))) fake_first(void)
{
	if (!getenv(CASE_ENV))
		return;
	fake_reset(PMUCTL_RDPMC_NONE, PMUCTL_BACKEND_MSR, 48, 48);
	fake_unreal_counters();
	set_values(10);
}

/* The checks of a case, in the child: a bit for each that failed. */
static int child(const char *c)
{
	struct pmuctl_regions *r = NULL;
	uint64_t calls = 0, v[3] = { 0 };
	int bits = 0;

	if (!strcmp(c, "none") || !strcmp(c, "bad")) {
		if (PAPI_hl_region_begin("x") != PAPI_OK ||
		    PAPI_hl_read("x") != PAPI_OK ||
		    PAPI_hl_region_end("x") != PAPI_OK ||
		    PAPI_hl_region_end("y") != PAPI_OK || PAPI_hl_stop() != PAPI_OK)
			bits |= 1;
		if (fake.nr_program || fake.nr_read)
			bits |= 2;
		return bits;
	}
	if (!strcmp(c, "handover") && pmuctl_regions_env(&r))
		return 64;
	fake.nr_read = 0;
	set_values(10);
	if (PAPI_hl_region_begin("x") != PAPI_OK)
		bits |= 1;
	if (!fake.nr_read)
		return 99;	/* no fault: SKIP */
	set_values(13);
	if (PAPI_hl_read("x") != PAPI_OK)
		bits |= 2;
	set_values(17);
	if (PAPI_hl_region_end("x") != PAPI_OK)
		bits |= 2;
	if (PAPI_hl_region_end("y") != PAPI_ENOTRUN)
		bits |= 4;
	if (r) {
		/* Two calls (the read is one), 7 events since the begin. */
		if (pmuctl_region_get(r, 0, &calls, v, 3) || calls != 2 ||
		    v[0] != 7 || v[1] != 14 || v[2] != 21)
			bits |= 8;
		if (pmuctl_regions_misuse(r, PMUCTL_REGION_MISUSE_EXIT_WITHOUT_ENTER) != 1)
			bits |= 16;
	}
	if (PAPI_hl_stop() != PAPI_OK)
		bits |= 32;
	set_values(100);
	if (PAPI_hl_region_begin("x") != PAPI_OK)
		bits |= 32;
	set_values(200);
	if (PAPI_hl_region_end("x") != PAPI_OK)
		bits |= 32;
	if (r && (pmuctl_region_get(r, 0, &calls, v, 3) || calls != 2))
		bits |= 32;
	if (!strcmp(c, "own") && (fake.nr_program != 1 ||
				  !(fake.prog.flags & PMUCTL_PROGRAM_INHERIT)))
		bits |= 16;
	return bits;
}

/* Run case @c with @env ("NAME=VALUE" strings, NULL-ended); its status. */
static int run_case(const char *c, char *const *env, const char *err_file)
{
	pid_t pid = fork();
	int status;

	if (!pid) {
		char *argv[] = { "papi_hl_test", NULL };
		int fd = open(err_file, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(120);
		for (; *env; env++)
			putenv(*env);
		setenv(CASE_ENV, c, 1);
		execv("/proc/self/exe", argv);
		_exit(121);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static char tmpdir[] = "/tmp/papi_hl_test.XXXXXX";

/* Each test runs in a process of its own, and removes its folder. */
static void rm_tmpdir(void)
{
	char cmd[64];

	if (tmpdir[strlen(tmpdir) - 1] == 'X')
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "papi_hl_test: could not remove %s\n", tmpdir);
}

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;

	buf[n] = 0;
	if (f)
		fclose(f);
}

TEST(the_hand_over_counts_and_read_is_a_call)
{
	char err[256], env0[128], buf[512];
	char *env[] = { env0, NULL };
	int fd = open("/dev/null", O_RDWR), st;

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, mkdtemp(tmpdir));
	snprintf(err, sizeof(err), "%s/err", tmpdir);
	/* The fake places events on its unreal counters: these. */
	snprintf(env0, sizeof(env0), "PMUCTL_REGIONS=fd=%d ev=%x/300c0,%x/3003c,%x/300c4",
		 fd, PMUCTL_COUNTER_FIXED | 30, 29, 28);
	st = run_case("handover", env, err);
	close(fd);
	slurp(err, buf, sizeof(buf));
	if (st == 99)
		rm_tmpdir();
	if (st == 99)
		SKIP(return, "rdpmc of a counter no PMU has did not fault: the emulation is never reached");
	EXPECT_EQ(0, st) TH_LOG("bits %d (1 begin, 2 read/end, 4 ENOTRUN, 8 counts, 16 misuse, 32 stop, 64 env); stderr: %s", st, buf);
	EXPECT_STREQ("", buf);
	rm_tmpdir();
}

TEST(papi_events_make_a_session_of_its_own_and_a_report)
{
	char err[256], dir[300], out[400], buf[4096];
	char e0[64] = "PMUCTL_DEVICE=/dev/null";
	char e1[64] = "PAPI_EVENTS=instructions,cycles,branches";
	char *env[] = { e0, e1, dir, NULL };
	int st;

	if (!tmpdir[0] || tmpdir[strlen(tmpdir) - 1] == 'X')
		ASSERT_NE(NULL, mkdtemp(tmpdir));
	snprintf(err, sizeof(err), "%s/err", tmpdir);
	snprintf(dir, sizeof(dir), "PAPI_OUTPUT_DIRECTORY=%s", tmpdir);
	st = run_case("own", env, err);
	slurp(err, buf, sizeof(buf));
	if (st == 99)
		rm_tmpdir();
	if (st == 99)
		SKIP(return, "rdpmc of a counter no PMU has did not fault: the emulation is never reached");
	EXPECT_EQ(0, st) TH_LOG("bits %d; stderr: %s", st, buf);
	/* The report, at exit: the region's row with its two calls. */
	snprintf(out, sizeof(out), "sh -c 'cat %s/papi_hl_output/pmuctl_*.json' > %s/report 2>&1",
		 tmpdir, tmpdir);
	ASSERT_EQ(0, system(out));
	snprintf(out, sizeof(out), "%s/report", tmpdir);
	slurp(out, buf, sizeof(buf));
	EXPECT_NE(NULL, strstr(buf, "{\"type\":\"region\",\"region\":\"x\",")) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "\"calls\":2,")) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "\"counts\":{\"instructions\":7,\"cycles\":14,\"branches\":21}")) TH_LOG("%s", buf);
	rm_tmpdir();
}

TEST(an_unknown_event_is_one_line_and_nothing_counts)
{
	char err[256], buf[1024];
	char e0[64] = "PMUCTL_DEVICE=/dev/null";
	char e1[64] = "PAPI_EVENTS=instructions,no_such_event";
	char *env[] = { e0, e1, NULL };
	int st;

	if (!tmpdir[0] || tmpdir[strlen(tmpdir) - 1] == 'X')
		ASSERT_NE(NULL, mkdtemp(tmpdir));
	snprintf(err, sizeof(err), "%s/err", tmpdir);
	st = run_case("bad", env, err);
	slurp(err, buf, sizeof(buf));
	EXPECT_EQ(0, st) TH_LOG("bits %d; stderr: %s", st, buf);
	EXPECT_EQ(0, strncmp(buf, "pmuctl-papi-hl: PAPI_EVENTS: event 'no_such_event': ", 52)) TH_LOG("%s", buf);
	EXPECT_EQ(1, (int)(strchr(buf, '\n') - buf + 1 == (long)strlen(buf))) TH_LOG("not one line: %s", buf);
	rm_tmpdir();
}

TEST(without_a_session_or_a_device_every_call_is_papi_ok_and_silent)
{
	char err[256], buf[1024];
	char e0[80] = "PMUCTL_DEVICE=/nonexistent/pmuctl";
	char *env[] = { e0, NULL };
	int st;

	if (!tmpdir[0] || tmpdir[strlen(tmpdir) - 1] == 'X')
		ASSERT_NE(NULL, mkdtemp(tmpdir));
	snprintf(err, sizeof(err), "%s/err", tmpdir);
	st = run_case("none", env, err);
	slurp(err, buf, sizeof(buf));
	EXPECT_EQ(0, st) TH_LOG("bits %d; stderr: %s", st, buf);
	EXPECT_STREQ("", buf);
	rm_tmpdir();
}

int main(int argc, char **argv)
{
	const char *c = getenv(CASE_ENV);

	if (c)
		return child(c);
	return test_harness_run(argc, argv);
}
