// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Build-time filter for the metrics table (mk/lib.mk): copies its input,
 * but the text of each "formula<TAB>..." and "threshold<TAB>..." line is
 * packed, as user/metrics.c unpacks it.  Intel's formulas repeat their
 * parts (a level-4 metric inlines its parents' formulas), so a reference
 * to an earlier copy shrinks the longest ones five- to tenfold.
 *
 * Packed text: ASCII as it is, and for a copy of 6 to 131 bytes found at
 * most 16383 bytes before, the four bytes 0x01, 0x80 | offset >> 7,
 * 0x80 | (offset & 0x7f), 0x80 | (length - 6), written as C octal escapes
 * ("\001\201\244\207") so that metrics-c.awk puts them in a C string as
 * they are.  No byte of it is NUL, a quote or a backslash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_LEN		6
#define MAX_LEN		(MIN_LEN + 127)
#define MAX_OFF		16383
#define HASH_BITS	14
#define CHAIN		512

static int head[1 << HASH_BITS];

static unsigned int hash3(const unsigned char *p)
{
	return ((p[0] << 10) ^ (p[1] << 5) ^ p[2]) & ((1 << HASH_BITS) - 1);
}

static void pack(const char *text, FILE *out)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t n = strlen(text);
	int *prev = malloc((n + 1) * sizeof(*prev));

	if (!prev) {
		perror("mpack");
		exit(1);
	}
	memset(head, -1, sizeof(head));
	for (size_t i = 0; i < n;) {
		size_t best = 0, off = 0;

		if (i + 3 <= n) {
			int j = head[hash3(s + i)];

			for (int k = 0; j >= 0 && k < CHAIN && i - (size_t)j <= MAX_OFF;
			     k++, j = prev[j]) {
				size_t l = 0;

				while (l < MAX_LEN && i + l < n && s[j + l] == s[i + l])
					l++;
				if (l > best) {
					best = l;
					off = i - (size_t)j;
				}
			}
		}
		if (best < MIN_LEN)
			best = 1;
		if (best == 1) {
			if (s[i] < 0x20 || s[i] > 0x7e || s[i] == '"' || s[i] == '\\') {
				fprintf(stderr, "mpack: byte %#x in a formula\n", s[i]);
				exit(1);
			}
			fputc(s[i], out);
		} else {
			fprintf(out, "\\001\\%03o\\%03o\\%03o",
				0x80 | (unsigned int)(off >> 7),
				0x80 | (unsigned int)(off & 0x7f),
				0x80 | (unsigned int)(best - MIN_LEN));
		}
		/* every position covered goes into the chains */
		for (size_t e = i + best; i < e; i++) {
			if (i + 3 <= n) {
				unsigned int h = hash3(s + i);

				prev[i] = head[h];
				head[h] = (int)i;
			}
		}
	}
	free(prev);
}

int main(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, stdin)) > 0) {
		char *tab = strchr(line, '\t');

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (tab && (!strncmp(line, "formula\t", 8) ||
			    !strncmp(line, "threshold\t", 10))) {
			fwrite(line, 1, (size_t)(tab + 1 - line), stdout);
			pack(tab + 1, stdout);
			fputc('\n', stdout);
		} else {
			puts(line);
		}
	}
	free(line);
	return ferror(stdout) ? 1 : 0;
}
