/*
 * main.c - the skillsfs program: `skillsfs check ...` validates skill
 * folders, `skillsfs export ...` writes them for upload, `skillsfs lock
 * ...` writes the lockfile of a mount, `skillsfs status ...` sums up
 * running mounts, `skillsfs gc` bounds the cache (cli/command.c says
 * which), anything else mounts them.
 */
#include "cli.h"
#include "options.h"

int main(int argc, char **argv)
{
	int status = cli_main(argc, argv);

	return status >= 0 ? status : mount_main(argc, argv);
}
