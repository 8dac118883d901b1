/* mount.c - placeholder until written. */
#include <stdio.h>
#include "cli.h"
int mount_main(int argc, char **argv)
{
	(void)argc; (void)argv;
	fputs("skillsfs: mount not built yet\n", stderr);
	return 2;
}
