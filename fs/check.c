/* check.c - placeholder until written. */
#include <stdio.h>
#include "cli.h"
int check_main(int argc, char **argv)
{
	(void)argc; (void)argv;
	fputs("skillsfs check: not built yet\n", stderr);
	return 2;
}
