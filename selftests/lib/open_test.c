// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl_open() where there is no device, on any host: the path (the
 * argument, else $PMUCTL_DEVICE, else /dev/pmuctl), its errors, and the
 * flags check.  Everything here fails before a session exists.
 *
 * pmuctl_strerror() after a failed pmuctl_open() says what the pmuctl
 * tool says (selftests/tool/cli.sh holds the tool to the same lines): the
 * module not loaded (with PMUCTL_DEVICE to fix when that named the path),
 * no PMU it drives (not Intel; no arch_perfmon: the VM hint), group 'pmu'
 * for EACCES and the module's paranoid for EPERM (open(2) refused so by a
 * seccomp filter, as root too), not the device; only for the failure the
 * thread's last pmuctl_open() returned, strerror() otherwise.
 * $PMUCTL_CPUINFO points the library at a made-up /proc/cpuinfo.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "libpmuctl.h"

/* A handle that must stay untouched-or-NULL: on failure, *out is NULL. */
#define JUNK	((struct pmuctl *)0x1)

FIXTURE(open) {
	char dir[64];
	char file[96];
	char missing[96];
	char intel[96];		/* made-up /proc/cpuinfo files */
	char amd[96];
	char noperfmon[96];
};

static void put(struct __test_metadata *_metadata, const char *path,
		const char *text)
{
	FILE *f = fopen(path, "w");

	ASSERT_NE(NULL, f);
	fputs(text, f);
	ASSERT_EQ(0, fclose(f));
}

FIXTURE_SETUP(open)
{
	int fd;

	strcpy(self->dir, "/tmp/pmuctl-open-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->file, sizeof(self->file), "%s/regular", self->dir);
	fd = open(self->file, O_CREAT | O_WRONLY, 0600);
	ASSERT_LE(0, fd);
	close(fd);
	unsetenv("PMUCTL_DEVICE");
	snprintf(self->missing, sizeof(self->missing), "%s/no-such-device", self->dir);
	snprintf(self->intel, sizeof(self->intel), "%s/cpuinfo-intel", self->dir);
	snprintf(self->amd, sizeof(self->amd), "%s/cpuinfo-amd", self->dir);
	snprintf(self->noperfmon, sizeof(self->noperfmon), "%s/cpuinfo-vm", self->dir);
	put(_metadata, self->intel,
	    "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu tsc arch_perfmon pebs\n\n");
	put(_metadata, self->amd,
	    "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu tsc perfctr_core\n\n");
	put(_metadata, self->noperfmon,
	    "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu tsc hypervisor\n\n");
	ASSERT_EQ(0, setenv("PMUCTL_CPUINFO", self->intel, 1));
}

FIXTURE_TEARDOWN(open)
{
	unlink(self->file);
	unlink(self->intel);
	unlink(self->amd);
	unlink(self->noperfmon);
	rmdir(self->dir);
}

/* pmuctl_strerror(ret, NULL, ...) */
static const char *say(int ret)
{
	static char buf[1024];

	return pmuctl_strerror(ret, NULL, buf, sizeof(buf));
}

/* The lines of the tool (user/open_error.c), for @path. */
#define NOT_LOADED	"%s does not exist: the pmuctl module is not loaded; load it with 'sudo modprobe pmuctl' (or 'sudo insmod pmuctl.ko' in the build tree)"
#define NO_PMU		"%s does not exist: no PMU that pmuctl drives: "

static const char *line(const char *fmt, const char *path)
{
	static char buf[1024];

	snprintf(buf, sizeof(buf), fmt, path);
	return buf;
}

/* open(2) for reading and writing fails with @err in this process. */
static void refuse_open(struct __test_metadata *_metadata, int err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 3),
		/* the flags' low word (x86-64 is little-endian) */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, O_ACCMODE),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, O_RDWR, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned int)err),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	ASSERT_EQ(0, prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	ASSERT_EQ(0, prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog));
}

TEST_F(open, missing_path_is_enoent)
{
	struct pmuctl *p = JUNK;
	char path[128];

	snprintf(path, sizeof(path), "%s/no-such-device", self->dir);
	EXPECT_EQ(-ENOENT, pmuctl_open(path, 0, &p));
	EXPECT_EQ(NULL, p);
}

/* $PMUCTL_DEVICE names the device when the path is NULL. */
TEST_F(open, environment_names_the_device)
{
	struct pmuctl *p = JUNK;
	char path[128];

	snprintf(path, sizeof(path), "%s/no-such-device", self->dir);
	ASSERT_EQ(0, setenv("PMUCTL_DEVICE", path, 1));
	EXPECT_EQ(-ENOENT, pmuctl_open(NULL, 0, &p));
	EXPECT_EQ(NULL, p);

	/* it is the environment that was used: a regular file gets further */
	ASSERT_EQ(0, setenv("PMUCTL_DEVICE", self->file, 1));
	EXPECT_EQ(-ENOTTY, pmuctl_open(NULL, 0, &p));
	EXPECT_EQ(NULL, p);
}

/* An explicit path wins over $PMUCTL_DEVICE. */
TEST_F(open, path_wins_over_environment)
{
	struct pmuctl *p = JUNK;
	char path[128];

	snprintf(path, sizeof(path), "%s/no-such-device", self->dir);
	ASSERT_EQ(0, setenv("PMUCTL_DEVICE", self->file, 1));
	EXPECT_EQ(-ENOENT, pmuctl_open(path, 0, &p));
	EXPECT_EQ(NULL, p);
}

/* Not the device: it opens, but the INFO ioctl is not there. */
TEST_F(open, regular_file_fails_info_with_enotty)
{
	struct pmuctl *p = JUNK;

	EXPECT_EQ(-ENOTTY, pmuctl_open(self->file, 0, &p));
	EXPECT_EQ(NULL, p);
	EXPECT_EQ(-ENOTTY, pmuctl_open("/dev/null", PMUCTL_OPEN_NO_EMULATION, &p));
	EXPECT_EQ(NULL, p);
}

/* open(2)'s own error comes back as it is. */
TEST_F(open, directory_is_eisdir)
{
	struct pmuctl *p = JUNK;

	EXPECT_EQ(-EISDIR, pmuctl_open(self->dir, 0, &p));
	EXPECT_EQ(NULL, p);
}

/* Unknown flags: -EINVAL before the device is looked at. */
TEST_F(open, unknown_flags_are_einval)
{
	const unsigned int bad[] = {
		~PMUCTL_OPEN_FLAGS_ALL, PMUCTL_OPEN_FLAGS_ALL << 1, 1U << 31,
		PMUCTL_OPEN_NO_EMULATION | (1U << 5),
	};
	struct pmuctl *p;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = JUNK;
		EXPECT_EQ(-EINVAL, pmuctl_open(self->file, bad[i], &p))
			TH_LOG("flags %#x", bad[i]);
		EXPECT_EQ(NULL, p);
		/* a missing device would be -ENOENT: the flags come first */
		EXPECT_EQ(-EINVAL, pmuctl_open("/nonexistent/pmuctl", bad[i], &p));
	}
}

/* Without the module, the default path is missing: -ENOENT. */
TEST_F(open, default_device_missing_is_enoent)
{
	struct pmuctl *p = JUNK;

	if (!access(PMUCTL_DEVICE_PATH, F_OK))
		SKIP(return, "%s exists on this host", PMUCTL_DEVICE_PATH);
	EXPECT_EQ(-ENOENT, pmuctl_open(NULL, 0, &p));
	EXPECT_EQ(NULL, p);
	/* an empty $PMUCTL_DEVICE means the default */
	ASSERT_EQ(0, setenv("PMUCTL_DEVICE", "", 1));
	EXPECT_EQ(-ENOENT, pmuctl_open(NULL, 0, &p));
}

/* No module: the line says to load it; from $PMUCTL_DEVICE, or to fix that. */
TEST_F(open, strerror_says_the_module_is_not_loaded)
{
	char want[2048];
	struct pmuctl *p;

	if (!access("/sys/module/pmuctl", F_OK))
		SKIP(return, "pmuctl is loaded on this host");
	ASSERT_EQ(-ENOENT, pmuctl_open(self->missing, 0, &p));
	EXPECT_STREQ(line(NOT_LOADED, self->missing), say(-ENOENT));
	/* the same for a positive errno */
	EXPECT_STREQ(line(NOT_LOADED, self->missing), say(ENOENT));

	ASSERT_EQ(0, setenv("PMUCTL_DEVICE", self->missing, 1));
	ASSERT_EQ(-ENOENT, pmuctl_open(NULL, 0, &p));
	snprintf(want, sizeof(want), "%s, or fix PMUCTL_DEVICE", line(NOT_LOADED, self->missing));
	EXPECT_STREQ(want, say(-ENOENT));

	if (!access(PMUCTL_DEVICE_PATH, F_OK))
		SKIP(return, "%s exists on this host", PMUCTL_DEVICE_PATH);
	unsetenv("PMUCTL_DEVICE");
	ASSERT_EQ(-ENOENT, pmuctl_open(NULL, 0, &p));
	EXPECT_STREQ(line(NOT_LOADED, PMUCTL_DEVICE_PATH), say(-ENOENT));
}

/* No PMU the module drives: not Intel; no arch_perfmon, the VM hint. */
TEST_F(open, strerror_says_there_is_no_pmu)
{
	char want[2048];
	struct pmuctl *p;

	if (!access("/sys/module/pmuctl", F_OK))
		SKIP(return, "pmuctl is loaded on this host");
	ASSERT_EQ(0, setenv("PMUCTL_CPUINFO", self->amd, 1));
	ASSERT_EQ(-ENOENT, pmuctl_open(self->missing, 0, &p));
	snprintf(want, sizeof(want), "%sthis CPU is not Intel (vendor_id AuthenticAMD) and pmuctl drives only the Intel core PMU",
		 line(NO_PMU, self->missing));
	EXPECT_STREQ(want, say(-ENOENT));

	ASSERT_EQ(0, setenv("PMUCTL_CPUINFO", self->noperfmon, 1));
	snprintf(want, sizeof(want), "%sthis CPU shows no PMU (no arch_perfmon flag in /proc/cpuinfo): in a VM, give the guest a virtual PMU (e.g. QEMU/KVM -cpu host,pmu=on)",
		 line(NO_PMU, self->missing));
	EXPECT_STREQ(want, say(-ENOENT));
}

/* EACCES: the device's permissions, the pmu group. */
TEST_F(open, strerror_says_to_join_the_pmu_group)
{
	struct pmuctl *p;

	refuse_open(_metadata, EACCES);
	ASSERT_EQ(-EACCES, pmuctl_open(self->file, 0, &p));
	EXPECT_STREQ(line("no permission to open %s: run as root, or get access to it (a udev rule giving it to group 'pmu' with MODE=\"0660\", and membership in 'pmu')",
			  self->file), say(-EACCES));
}

/* EPERM: the module's paranoid level. */
TEST_F(open, strerror_names_the_paranoid_parameter)
{
	struct pmuctl *p;

	refuse_open(_metadata, EPERM);
	ASSERT_EQ(-EPERM, pmuctl_open(self->file, 0, &p));
	EXPECT_STREQ(line("%s admits only CAP_PERFMON or root (module parameter paranoid=3, the default): run as root, or let users count CPU-wide with paranoid=0 ('sudo modprobe pmuctl paranoid=0', or write 0 to /sys/module/pmuctl/parameters/paranoid), as kernel.perf_event_paranoid=0 does for perf",
			  self->file), say(-EPERM));
}

/* Not the device: what to point where, for the argument and for the environment. */
TEST_F(open, strerror_says_it_is_not_the_device)
{
	struct pmuctl *p;

	ASSERT_EQ(-ENOTTY, pmuctl_open(self->file, 0, &p));
	EXPECT_STREQ(line("%s is not the pmuctl device (Inappropriate ioctl for device): open /dev/pmuctl (pmuctl_open() with a NULL path)",
			  self->file), say(-ENOTTY));
	ASSERT_EQ(0, setenv("PMUCTL_DEVICE", self->dir, 1));
	ASSERT_EQ(-EISDIR, pmuctl_open(NULL, 0, &p));
	EXPECT_STREQ(line("%s is not the pmuctl device (Is a directory): point PMUCTL_DEVICE at /dev/pmuctl or unset it",
			  self->dir), say(-EISDIR));
	ASSERT_EQ(-EINVAL, pmuctl_open(NULL, 1U << 5, &p));
	EXPECT_STREQ("unknown pmuctl_open() flags 0x20", say(-EINVAL));
}

static void *other_thread(void *arg)
{
	char buf[256];

	(void)arg;
	return strdup(pmuctl_strerror(-ENOTTY, NULL, buf, sizeof(buf)));
}

/*
 * Only the failure of the thread's last pmuctl_open() is explained: any
 * other value, an earlier open's, another thread's, a refusal that names
 * its rule, are what they were.
 */
TEST_F(open, strerror_explains_only_the_last_open_of_this_thread)
{
	struct pmuctl_error err = { .reason = PMUCTL_R_EDGE_NO_CMASK, .index = 0, .cpu = UINT32_MAX };
	char buf[512], want[512];
	struct pmuctl *p;
	pthread_t t;
	void *seen;

	ASSERT_EQ(-ENOTTY, pmuctl_open(self->file, 0, &p));
	EXPECT_STREQ(strerror(EACCES), say(-EACCES));
	EXPECT_NE(NULL, strstr(say(-ENOTTY), "is not the pmuctl device"));
	ASSERT_EQ(0, pthread_create(&t, NULL, other_thread, NULL));
	ASSERT_EQ(0, pthread_join(t, &seen));
	EXPECT_STREQ(strerror(ENOTTY), (char *)seen);
	free(seen);
	snprintf(want, sizeof(want), "event 0: EDGE_NO_CMASK: %s",
		 pmuctl_reason_text(PMUCTL_R_EDGE_NO_CMASK));
	EXPECT_STREQ(want, pmuctl_strerror(-ENOTTY, &err, buf, sizeof(buf)));

	ASSERT_EQ(-ENOENT, pmuctl_open(self->missing, 0, &p));
	EXPECT_STREQ(strerror(ENOTTY), say(-ENOTTY));
}

/* pmuctl_close(NULL) is allowed. */
TEST(close_null)
{
	pmuctl_close(NULL);
}

TEST_HARNESS_MAIN
