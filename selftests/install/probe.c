// SPDX-License-Identifier: GPL-2.0
/*
 * A program built against an installed libpmuctl by install.sh, with
 * "pkg-config --cflags --libs libpmuctl", shared and --static.  It calls
 * what works without a device, event names included, so that the static
 * link needs libpfm4 (libpmuctl.pc's Libs.private) and the output shows
 * the library ran: the KNM encoding of instruction_retired:u is the one
 * "pmuctl check --pmu knm instruction_retired:u" prints.
 */
#include <stdio.h>

#include <libpmuctl.h>

int main(void)
{
	struct pmuctl_event ev;
	char msg[256];
	int ret;

	ret = pmuctl_event_parse("knm", "instruction_retired:u", &ev, msg,
				 sizeof(msg));
	if (ret) {
		fprintf(stderr, "pmuctl_event_parse: %d: %s\n", ret, msg);
		return 1;
	}
	printf("instruction_retired:u 0x%llx 0x%llx\n",
	       (unsigned long long)ev.config, (unsigned long long)ev.extra);
	printf("%s %s %s\n", pmuctl_reason_name(PMUCTL_R_EDGE_NO_CMASK),
	       pmuctl_model_name(PMUCTL_MODEL_KNM),
	       pmuctl_pfm_pmu_name(PMUCTL_MODEL_ARCH));
	return 0;
}
