/* skillsfs-mcp - placeholder until written. */
#include <stdio.h>
int main(void)
{
	fputs("skillsfs-mcp: not built yet\n", stderr);
	return 1;
}
