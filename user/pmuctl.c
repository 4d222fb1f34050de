// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl: the command-line tool.
 *
 * Subcommands live in one table (cmds[] below), one file each
 * (user/tool_NAME.c); each has a run function taking its own argc/argv
 * (argv[0] is the subcommand name) and a usage function.  Exit status: 0
 * success, 1 failure (for check: some event is invalid), 2 usage error.
 *
 * The tool is GPL-2.0 because check links the module's core (kmod/core);
 * everything else goes through libpmuctl.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "tool.h"

struct cmd {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
	void (*usage)(FILE *f);
};

static int cmd_help(int argc, char **argv);
static void help_usage(FILE *f);

static const struct cmd cmds[] = {
	{ "info",  "the PMU, the module and who holds which counters",  cmd_info,  info_usage },
	{ "list",  "the PMU's events, umasks and modifiers (libpfm4)",   cmd_list,  list_usage },
	{ "stat",  "count a command's threads (or a CPU) while it runs",  cmd_stat,  stat_usage },
	{ "watch", "count events on CPUs at an interval, system-wide",   cmd_watch, watch_usage },
	{ "check", "check events against a PMU's rules, offline",        cmd_check, check_usage },
	{ "help",  "show help on a command",                             cmd_help,  help_usage },
};

#define NR_CMDS	ARRAY_SIZE(cmds)

static const struct cmd *cmd_find(const char *name)
{
	for (size_t i = 0; i < NR_CMDS; i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

static void main_usage(FILE *f)
{
	fputs("usage: pmuctl COMMAND [ARGS]...\n"
	      "\n"
	      "Own the Intel core PMU through /dev/pmuctl.\n"
	      "\n"
	      "commands:\n", f);
	for (size_t i = 0; i < NR_CMDS; i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
	fputs("\n'pmuctl COMMAND --help' or 'pmuctl help COMMAND' shows a command's help;\n"
	      "'pmuctl --version' the release and the library's and module's interfaces.\n"
	      "\n"
	      "Environment: PMUCTL_DEVICE names the device instead of /dev/pmuctl.\n"
	      "Exit status: 0 success, 1 failure, 2 usage error.\n", f);
}

static void help_usage(FILE *f)
{
	fputs("usage: pmuctl help [COMMAND]\n", f);
}

static int cmd_help(int argc, char **argv)
{
	const struct cmd *cmd;

	if (argc < 2) {
		main_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		help_usage(stdout);
		return 0;
	}
	if (argv[1][0] == '-' || argc > 2) {
		fprintf(stderr, "pmuctl help: %s '%s'\ntry 'pmuctl help --help'\n",
			argv[1][0] == '-' ? "unknown option" : "unexpected argument",
			argv[argv[1][0] == '-' ? 1 : 2]);
		return EXIT_USAGE;
	}
	cmd = cmd_find(argv[1]);
	if (!cmd) {
		fprintf(stderr, "pmuctl help: unknown command '%s'\ntry 'pmuctl --help'\n",
			argv[1]);
		return EXIT_USAGE;
	}
	cmd->usage(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	const struct cmd *cmd;

	if (argc < 2) {
		fputs("pmuctl: missing command\ntry 'pmuctl --help'\n", stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		main_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		unsigned int minor, abi;
		const char *rel = pmuctl_version(&minor, &abi);

		if (argc > 2) {
			fputs("pmuctl: --version takes no argument\ntry 'pmuctl --help'\n",
			      stderr);
			return EXIT_USAGE;
		}
		printf("pmuctl %s (libpmuctl interface %d.%u, module ABI %u)\n",
		       rel, LIBPMUCTL_VERSION_MAJOR, minor, abi);
		return 0;
	}
	cmd = cmd_find(argv[1]);
	if (!cmd) {
		fprintf(stderr, "pmuctl: unknown command '%s'\ntry 'pmuctl --help'\n",
			argv[1]);
		return EXIT_USAGE;
	}
	return cmd->run(argc - 1, argv + 1);
}
