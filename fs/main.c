/*
 * main.c - the skillsfs program: `skillsfs check ...` validates skill
 * folders, `skillsfs export ...` writes them for upload, `skillsfs lock
 * ...` writes the lockfile of a mount, `skillsfs status ...` sums up
 * running mounts, anything else mounts them.
 */
#include <string.h>

#include "cli.h"
#include "options.h"

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "check") == 0)
		return check_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "export") == 0)
		return export_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "lock") == 0)
		return lock_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "status") == 0)
		return status_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "gc") == 0)
		return gc_main(argc - 1, argv + 1);
	return mount_main(argc, argv);
}
