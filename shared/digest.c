/* digest.c - placeholder until written. */
