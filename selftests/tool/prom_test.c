// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl watch's fleet output (user/tool_prom.c) on any host: what
 * tool_prom_write() writes is read back by a real parser, Debian's
 * python3-prometheus-client (selftests/tool/prom_parse.py: the text format
 * 0.0.4 parser and the OpenMetrics one), and compared with what a reader
 * must see:
 *
 *  - one counter family per event name, pmuctl_ and the name with every
 *    byte outside [a-zA-Z0-9_] as _; names that come out the same share
 *    one family; samples NAME_total with the labels cpu and event;
 *  - label values with a backslash (before an n: unescaped, a parser
 *    reads a newline), a double quote and a newline read back as they
 *    were (escaped as both formats say);
 *  - OpenMetrics ends with # EOF (its parser refuses a file without it),
 *    Prometheus text names its families with _total, as node_exporter's
 *    parser wants them;
 *  - a CPU not counted is left out;
 *  - tool_prom_replace(): the file is replaced by a rename, never
 *    rewritten: a reader that opened the old file reads the whole old
 *    file; no PATH.tmp is left; a PATH.tmp that cannot be written leaves
 *    the old file as it was.
 *
 * Without the parser (python3-prometheus-client, scripts/deps.sh core)
 * the parser tests SKIP.  $PYTHON3 is the interpreter (default
 * /usr/bin/python3, Debian's, where the package installs the module),
 * $PMUCTL_SRCDIR the tree (default .).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "tool.h"

static const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

/* The parser is there: python3 imports prometheus_client. */
static bool have_parser(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "%s -c 'import prometheus_client.openmetrics.parser' 2>/dev/null",
		 env_or("PYTHON3", "/usr/bin/python3"));
	return system(cmd) == 0;
}

/* prom_parse.py FMT PATH: its output in @out (malloc'd), its exit status. */
static int parse(const char *fmt, const char *path, char **out)
{
	char cmd[1024];
	size_t len = 0;
	FILE *f, *m;
	int c, st;

	snprintf(cmd, sizeof(cmd), "%s %s/selftests/tool/prom_parse.py %s %s 2>&1",
		 env_or("PYTHON3", "/usr/bin/python3"),
		 env_or("PMUCTL_SRCDIR", "."), fmt, path);
	m = open_memstream(out, &len);
	f = popen(cmd, "r");
	if (!f || !m)
		return -1;
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	st = pclose(f);
	fclose(m);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r"), *m = open_memstream(&buf, &len);
	int c;

	if (f)
		while ((c = fgetc(f)) != EOF)
			fputc(c, m);
	fclose(m);
	if (f)
		fclose(f);
	return buf;
}

/*
 * Five events on CPUs 0, 3 and 5, CPU 3 not counted: "a:b" and "a_b"
 * share a family, one name has every character that must be escaped.
 */
static const char *const names[] = {
	"inst_retired:any_p", "weird\"q\\nb\nn", "a:b", "r1c4", "a_b",
};
static const unsigned int cpus[] = { 0, 3, 5 };
static const bool counted[] = { true, false, true };
static uint64_t totals[3][5];

static struct tool_prom model(enum tool_prom_format format)
{
	for (unsigned int c = 0; c < 3; c++)
		for (unsigned int e = 0; e < 5; e++)
			totals[c][e] = (1ULL << 40) + 1000 * cpus[c] + e;
	return (struct tool_prom) {
		.format = format, .nr_events = 5, .name = names,
		.nr_cpus = 3, .cpu = cpus, .total = &totals[0][0],
		.counted = counted,
	};
}

/* What the parser must read, in either format: 2^40 = 1099511627776. */
static const char want[] =
	"counter pmuctl_inst_retired_any_p\n"
	"  pmuctl_inst_retired_any_p_total {\"cpu\": \"0\", \"event\": \"inst_retired:any_p\"} 1099511627776\n"
	"  pmuctl_inst_retired_any_p_total {\"cpu\": \"5\", \"event\": \"inst_retired:any_p\"} 1099511632776\n"
	"counter pmuctl_weird_q_nb_n\n"
	"  pmuctl_weird_q_nb_n_total {\"cpu\": \"0\", \"event\": \"weird\\\"q\\\\nb\\nn\"} 1099511627777\n"
	"  pmuctl_weird_q_nb_n_total {\"cpu\": \"5\", \"event\": \"weird\\\"q\\\\nb\\nn\"} 1099511632777\n"
	"counter pmuctl_a_b\n"
	"  pmuctl_a_b_total {\"cpu\": \"0\", \"event\": \"a:b\"} 1099511627778\n"
	"  pmuctl_a_b_total {\"cpu\": \"0\", \"event\": \"a_b\"} 1099511627780\n"
	"  pmuctl_a_b_total {\"cpu\": \"5\", \"event\": \"a:b\"} 1099511632778\n"
	"  pmuctl_a_b_total {\"cpu\": \"5\", \"event\": \"a_b\"} 1099511632780\n"
	"counter pmuctl_r1c4\n"
	"  pmuctl_r1c4_total {\"cpu\": \"0\", \"event\": \"r1c4\"} 1099511627779\n"
	"  pmuctl_r1c4_total {\"cpu\": \"5\", \"event\": \"r1c4\"} 1099511632779\n";

FIXTURE(prom) {
	char dir[64];
	char path[96];
	char tmp[112];
};

FIXTURE_SETUP(prom)
{
	strcpy(self->dir, "/tmp/pmuctl-prom-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->path, sizeof(self->path), "%s/pmuctl.prom", self->dir);
	snprintf(self->tmp, sizeof(self->tmp), "%s.tmp", self->path);
}

FIXTURE_TEARDOWN(prom)
{
	unlink(self->path);
	unlink(self->tmp);
	rmdir(self->tmp);
	rmdir(self->dir);
}

static void write_file(struct __test_metadata *_metadata, const char *path,
		       const struct tool_prom *m)
{
	FILE *f = fopen(path, "w");

	ASSERT_NE(NULL, f);
	EXPECT_EQ(0, tool_prom_write(f, m));
	ASSERT_EQ(0, fclose(f));
}

TEST_F(prom, openmetrics_parser_reads_every_family_label_and_value)
{
	struct tool_prom m = model(TOOL_PROM_OPENMETRICS);
	char *out = NULL, *text;
	size_t len;

	if (!have_parser())
		SKIP(return, "no python3-prometheus-client (scripts/deps.sh core installs it)");
	write_file(_metadata, self->path, &m);
	EXPECT_EQ(0, parse("openmetrics", self->path, &out));
	EXPECT_STREQ(want, out) {
		TH_LOG("file:\n%s", slurp(self->path));
	}
	text = slurp(self->path);
	len = strlen(text);
	ASSERT_LE(6U, len);
	EXPECT_STREQ("# EOF\n", text + len - 6);
	/* OpenMetrics names the family without _total */
	EXPECT_NE(NULL, strstr(text, "\n# TYPE pmuctl_a_b counter\n"));
	free(out);
	free(text);
}

TEST_F(prom, prometheus_text_parser_reads_every_family_label_and_value)
{
	struct tool_prom m = model(TOOL_PROM_TEXT);
	char *out = NULL, *text;

	if (!have_parser())
		SKIP(return, "no python3-prometheus-client (scripts/deps.sh core installs it)");
	write_file(_metadata, self->path, &m);
	EXPECT_EQ(0, parse("prometheus", self->path, &out));
	EXPECT_STREQ(want, out) {
		TH_LOG("file:\n%s", slurp(self->path));
	}
	/*
	 * node_exporter's (Go) parser wants the counter's family named as
	 * its samples are; Python's strips _total either way.  No # EOF.
	 */
	text = slurp(self->path);
	EXPECT_NE(NULL, strstr(text, "# HELP pmuctl_a_b_total "));
	EXPECT_NE(NULL, strstr(text, "\n# TYPE pmuctl_a_b_total counter\n"));
	EXPECT_EQ(NULL, strstr(text, "# EOF"));
	free(out);
	free(text);
}

/* The parsers are real: they refuse what pmuctl must not write. */
TEST_F(prom, openmetrics_parser_refuses_what_pmuctl_must_not_write)
{
	static const char *const bad[] = {
		/* no # EOF */
		"# TYPE pmuctl_x counter\npmuctl_x_total{cpu=\"0\",event=\"x\"} 1\n",
		/* no _total */
		"# TYPE pmuctl_x counter\npmuctl_x{cpu=\"0\",event=\"x\"} 1\n# EOF\n",
		/* a quote not escaped */
		"# TYPE pmuctl_x counter\npmuctl_x_total{cpu=\"0\",event=\"a\"b\"} 1\n# EOF\n",
	};
	char *out = NULL;

	if (!have_parser())
		SKIP(return, "no python3-prometheus-client (scripts/deps.sh core installs it)");
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		FILE *f = fopen(self->path, "w");

		ASSERT_NE(NULL, f);
		fputs(bad[i], f);
		ASSERT_EQ(0, fclose(f));
		EXPECT_EQ(1, parse("openmetrics", self->path, &out))
			TH_LOG("accepted: %s", bad[i]);
		free(out);
		out = NULL;
	}
}

TEST_F(prom, replace_renames_and_an_open_reader_keeps_the_old_file)
{
	struct tool_prom m = model(TOOL_PROM_OPENMETRICS);
	struct stat a, b;
	char old[4096], *now;
	ssize_t n;
	int fd;

	umask(022);
	ASSERT_EQ(0, tool_prom_replace(self->path, &m));
	ASSERT_EQ(0, stat(self->path, &a));
	/* readable by node_exporter's user */
	EXPECT_EQ(0644U, a.st_mode & 0777);
	EXPECT_NE(0, access(self->tmp, F_OK));
	/* a reader holds the first file open while it is replaced */
	fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, fd);
	totals[0][0] = 7;
	m.format = TOOL_PROM_TEXT;	/* another length, another text */
	ASSERT_EQ(0, tool_prom_replace(self->path, &m));
	ASSERT_EQ(0, stat(self->path, &b));
	EXPECT_NE(a.st_ino, b.st_ino);
	n = pread(fd, old, sizeof(old) - 1, 0);
	close(fd);
	ASSERT_LT(0, n);
	old[n] = '\0';
	EXPECT_EQ(a.st_size, n);
	EXPECT_STREQ("# EOF\n", old + n - 6);
	/* and the new file is the whole new exposition */
	now = slurp(self->path);
	EXPECT_NE(NULL, strstr(now, "pmuctl_inst_retired_any_p_total{cpu=\"0\",event=\"inst_retired:any_p\"} 7\n"));
	EXPECT_EQ(NULL, strstr(now, "# EOF"));
	EXPECT_NE(0, access(self->tmp, F_OK));
	free(now);
}

/* PATH.tmp cannot be written: an error, and PATH stays as it was. */
TEST_F(prom, replace_that_fails_leaves_the_old_file)
{
	struct tool_prom m = model(TOOL_PROM_OPENMETRICS);
	char *before, *after;

	ASSERT_EQ(0, tool_prom_replace(self->path, &m));
	before = slurp(self->path);
	ASSERT_EQ(0, mkdir(self->tmp, 0700));
	totals[0][0] = 7;
	EXPECT_EQ(-EISDIR, tool_prom_replace(self->path, &m));
	after = slurp(self->path);
	EXPECT_STREQ(before, after);
	free(before);
	free(after);
}

/* A link planted at PATH.tmp is not followed. */
TEST_F(prom, replace_does_not_follow_a_link_at_the_tmp_name)
{
	struct tool_prom m = model(TOOL_PROM_OPENMETRICS);
	char target[128];
	struct stat st;

	snprintf(target, sizeof(target), "%s/target", self->dir);
	ASSERT_EQ(0, symlink(target, self->tmp));
	EXPECT_EQ(-ELOOP, tool_prom_replace(self->path, &m));
	EXPECT_NE(0, lstat(target, &st));
	EXPECT_NE(0, lstat(self->path, &st));
	unlink(target);
}

TEST_HARNESS_MAIN
