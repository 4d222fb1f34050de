// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl_open() where there is no device, on any host: the path (the
 * argument, else $PMUCTL_DEVICE, else /dev/pmuctl), its errors, and the
 * flags check.  Everything here fails before a session exists.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "libpmuctl.h"

/* A handle that must stay untouched-or-NULL: on failure, *out is NULL. */
#define JUNK	((struct pmuctl *)0x1)

FIXTURE(open) {
	char dir[64];
	char file[96];
};

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
}

FIXTURE_TEARDOWN(open)
{
	unlink(self->file);
	rmdir(self->dir);
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

/* pmuctl_close(NULL) is allowed. */
TEST(close_null)
{
	pmuctl_close(NULL);
}

TEST_HARNESS_MAIN
