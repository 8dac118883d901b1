/* frontmatter.c - placeholder until written. */
