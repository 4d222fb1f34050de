// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Why pmuctl_open() failed, said as the pmuctl tool says it (the tool
 * prints these lines, "pmuctl CMD: " before them): the module is not
 * loaded, or there is no PMU it drives (in a VM: no virtual PMU), or the
 * device's permissions, or the module's paranoid level, or the path is
 * not the device.  pmuctl_open() records its failure per thread;
 * pmuctl_strerror() asks here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libpmuctl.h"
#include "open_error.h"

/*
 * Test hook: read this file instead of /proc/cpuinfo when telling "no PMU"
 * from "module not loaded" (the tests fake both on any host).
 */
#define CPUINFO_ENV	"PMUCTL_CPUINFO"

static _Thread_local struct {
	int ret;		/* 0: nothing recorded */
	enum open_source src;
	unsigned int flags;
	char path[256];		/* truncated beyond */
} failed;

void pmuctl_open_record(int ret, const char *path, enum open_source src,
			   unsigned int flags)
{
	failed.ret = ret;
	if (!ret)
		return;
	/* A caller naming the default path gets the default's advice. */
	if (src == OPEN_ARG && !strcmp(path, PMUCTL_DEVICE_PATH))
		src = OPEN_DEFAULT;
	failed.src = src;
	failed.flags = flags;
	snprintf(failed.path, sizeof(failed.path), "%s", path);
}

/*
 * Can this CPU have a PMU pmuctl drives?  The module refuses to load (and
 * udev never makes the device) on a CPU that is not Intel or lacks
 * architectural perfmon, typically a VM without a virtual PMU; the kernel
 * shows both in /proc/cpuinfo (vendor_id, the arch_perfmon flag).
 * Return: NULL when it can (or cpuinfo cannot be read: then assume it
 * can), else what is missing.
 */
static const char *cpu_lacks_pmu(char *buf, size_t len)
{
	const char *path = secure_getenv(CPUINFO_ENV);
	bool have_vendor = false, have_flags = false, perfmon = false;
	char line[4096], vendor[64] = "";
	FILE *f;

	if (!path || !*path)
		path = "/proc/cpuinfo";
	f = fopen(path, "re");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f) && !(have_vendor && have_flags)) {
		char *colon = strchr(line, ':'), *save;

		if (!colon)
			continue;
		if (!have_vendor && !strncmp(line, "vendor_id", 9)) {
			have_vendor = sscanf(colon + 1, " %63s", vendor) == 1;
		} else if (!have_flags && !strncmp(line, "flags", 5)) {
			for (char *w = strtok_r(colon + 1, " \t\n", &save); w;
			     w = strtok_r(NULL, " \t\n", &save))
				if (!strcmp(w, "arch_perfmon"))
					perfmon = true;
			have_flags = true;
		}
	}
	fclose(f);
	if (have_vendor && strcmp(vendor, "GenuineIntel")) {
		snprintf(buf, len, "this CPU is not Intel (vendor_id %s) and pmuctl drives only the Intel core PMU",
			 vendor);
		return buf;
	}
	if (have_flags && !perfmon) {
		snprintf(buf, len, "this CPU shows no PMU (no arch_perfmon flag in /proc/cpuinfo): in a VM, give the guest a virtual PMU (e.g. QEMU/KVM -cpu host,pmu=on)");
		return buf;
	}
	return NULL;
}

char *pmuctl_open_explain(int ret, char *buf, size_t len)
{
	const char *path = failed.path;
	bool env = failed.src == OPEN_ENV, arg = failed.src == OPEN_ARG;
	char why[256];

	if (!ret || ret != failed.ret)
		return NULL;
	switch (ret) {
	case -ENOENT:
		if (!access("/sys/module/pmuctl", F_OK)) {
			snprintf(buf, len, "%s does not exist although the pmuctl module is loaded: %s",
				 path, env ? "fix or unset PMUCTL_DEVICE" :
				 "create it as /sys/class/misc/pmuctl/dev says (udev or mknod)");
		} else if (cpu_lacks_pmu(why, sizeof(why))) {
			snprintf(buf, len, "%s does not exist: no PMU that pmuctl drives: %s",
				 path, why);
		} else {
			snprintf(buf, len, "%s does not exist: the pmuctl module is not loaded; load it with 'sudo modprobe pmuctl' (or 'sudo insmod pmuctl.ko' in the build tree)%s",
				 path, env ? ", or fix PMUCTL_DEVICE" : "");
		}
		break;
	case -EACCES:
		snprintf(buf, len, "no permission to open %s: run as root, or get access to it (a udev rule giving it to group 'pmu' with MODE=\"0660\", and membership in 'pmu')",
			 path);
		break;
	case -EPERM:
		snprintf(buf, len, "%s admits only CAP_PERFMON or root (module parameter paranoid=3, the default): run as root, or let users count CPU-wide with paranoid=0 ('sudo modprobe pmuctl paranoid=0', or write 0 to /sys/module/pmuctl/parameters/paranoid), as kernel.perf_event_paranoid=0 does for perf",
			 path);
		break;
	case -EMFILE:
		snprintf(buf, len, "this user has as many %s sessions open as the module parameter user_max_sessions allows: close some, or raise it",
			 path);
		break;
	case -EPROTO:
		snprintf(buf, len, "%s speaks another ABI version than this pmuctl (ABI %d): install a pmuctl.ko and pmuctl of the same release",
			 path, PMUCTL_ABI_VERSION);
		break;
	case -EINVAL:
		if (failed.flags & ~PMUCTL_OPEN_FLAGS_ALL) {
			snprintf(buf, len, "unknown pmuctl_open() flags %#x",
				 failed.flags & ~PMUCTL_OPEN_FLAGS_ALL);
			break;
		}
		/* the INFO ioctl refused: not the device */
		__attribute__((fallthrough));
	case -ENOTTY:
	case -EISDIR:
	case -ENOTDIR:
	case -ENXIO:
		snprintf(buf, len, "%s is not the pmuctl device (%s): %s", path,
			 strerror(-ret), env ? "point PMUCTL_DEVICE at /dev/pmuctl or unset it" :
			 arg ? "open /dev/pmuctl (pmuctl_open() with a NULL path)" :
			 "another driver owns that name: check 'ls -l /dev/pmuctl' and /sys/class/misc/pmuctl");
		break;
	default:
		snprintf(buf, len, "cannot open %s: %s", path, strerror(-ret));
		break;
	}
	return buf;
}
