// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl watch's fleet output: the Prometheus text exposition format
 * (version 0.0.4, what node_exporter's textfile collector reads) and
 * OpenMetrics 1.0, and the atomic replacement of a file for that
 * collector.
 *
 * One metric family per event name, "pmuctl_" and the name with every
 * byte outside [a-zA-Z0-9_] made '_' (colons are valid in metric names
 * but reserved for recording rules); events whose names come out the same
 * (a:b and a_b) share the family, their label event tells them apart.  A
 * counter: in Prometheus text the family is named with its _total suffix,
 * in OpenMetrics without it, the samples with it in both.  Label values
 * are escaped as both formats say: backslash, double quote, newline.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

#define PROM_PREFIX	"pmuctl_"

static char prom_char(char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_')
		return c;
	return '_';
}

/* Do @a and @b name the same family? */
static bool prom_same(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (prom_char(*a) != prom_char(*b))
			return false;
	return !*a && !*b;
}

void tool_prom_name(FILE *f, const char *event)
{
	fputs(PROM_PREFIX, f);
	for (; *event; event++)
		fputc(prom_char(*event), f);
}

void tool_prom_label(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		switch (*s) {
		case '\\':
			fputs("\\\\", f);
			break;
		case '"':
			fputs("\\\"", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		default:
			fputc(*s, f);
		}
	}
	fputc('"', f);
}

int tool_prom_write(FILE *f, const struct tool_prom *m)
{
	bool om = m->format == TOOL_PROM_OPENMETRICS;

	for (unsigned int i = 0; i < m->nr_events; i++) {
		bool first = true;

		for (unsigned int j = 0; j < i && first; j++)
			first = !prom_same(m->name[i], m->name[j]);
		if (!first)
			continue;
		fputs("# HELP ", f);
		tool_prom_name(f, m->name[i]);
		fputs(om ? "" : "_total", f);
		fputs(" Events counted on each CPU since pmuctl watch started counting (label event: the name given to pmuctl)\n# TYPE ",
		      f);
		tool_prom_name(f, m->name[i]);
		fputs(om ? " counter\n" : "_total counter\n", f);
		for (unsigned int c = 0; c < m->nr_cpus; c++) {
			if (!m->counted[c])
				continue;
			for (unsigned int k = i; k < m->nr_events; k++) {
				if (!prom_same(m->name[i], m->name[k]))
					continue;
				tool_prom_name(f, m->name[k]);
				fprintf(f, "_total{cpu=\"%u\",event=", m->cpu[c]);
				tool_prom_label(f, m->name[k]);
				fprintf(f, "} %llu\n", (unsigned long long)
					m->total[(size_t)c * m->nr_events + k]);
			}
		}
	}
	if (om)
		fputs("# EOF\n", f);
	return ferror(f) ? -EIO : 0;
}

/*
 * PATH.tmp in PATH's directory (so the rename stays on one file system),
 * written, flushed to disk, renamed over PATH: a reader opens either the
 * previous file or this one, never a part.  node_exporter's textfile
 * collector reads only *.prom, so it never looks at PATH.tmp.
 */
int tool_prom_replace(const char *path, const struct tool_prom *m)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + sizeof(".tmp"));
	FILE *f = NULL;
	int fd, ret;

	if (!tmp)
		return -ENOMEM;
	memcpy(tmp, path, len);
	memcpy(tmp + len, ".tmp", sizeof(".tmp"));
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		goto unlink;
	}
	ret = tool_prom_write(f, m);
	if (!ret && fflush(f))
		ret = -errno;
	if (!ret && fsync(fd))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
unlink:
	if (ret)
		unlink(tmp);
out:
	free(tmp);
	return ret;
}
