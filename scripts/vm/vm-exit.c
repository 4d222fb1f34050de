// SPDX-License-Identifier: GPL-2.0
/*
 * vm-exit: end the QEMU guest with a status the host can read.
 *
 * QEMU's "-device isa-debug-exit,iobase=0xf4,iosize=4" turns a write of
 * VALUE to port 0xf4 into an exit of QEMU itself with status
 * (VALUE << 1) | 1, so 0 comes back as 1 and 16 as 33.  An exit status of
 * 0 therefore always means something else stopped the guest (a reboot or
 * panic under -no-reboot).
 *
 * usage: vm-exit [VALUE]     (VALUE 0..127, default 0; root only)
 *
 * Linked statically: it runs from the rig's initramfs, which has no libc.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <termios.h>
#include <unistd.h>

#define DEBUG_EXIT_PORT	0xf4

int main(int argc, char **argv)
{
	unsigned long value = 0;
	char *end;

	if (argc > 2) {
		fprintf(stderr, "usage: vm-exit [VALUE]\n");
		return 2;
	}
	if (argc == 2) {
		errno = 0;
		value = strtoul(argv[1], &end, 0);
		/* QEMU's status is 8 bits wide: VALUE above 127 would wrap. */
		if (errno || *end || end == argv[1] || value > 127) {
			fprintf(stderr, "vm-exit: bad value '%s'\n", argv[1]);
			return 2;
		}
	}
	/*
	 * QEMU exits at the port write: wait until the serial console has
	 * sent what was written to it, or the last lines are lost.
	 */
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
		if (isatty(fd))
			tcdrain(fd);
	if (ioperm(DEBUG_EXIT_PORT, 4, 1)) {
		fprintf(stderr, "vm-exit: ioperm: %s\n", strerror(errno));
		return 1;
	}
	outl((unsigned int)value, DEBUG_EXIT_PORT);
	/* Only reached without the isa-debug-exit device. */
	fprintf(stderr, "vm-exit: no isa-debug-exit device at %#x\n",
		DEBUG_EXIT_PORT);
	return 1;
}
