/* render.c - placeholder until written. */
