/* catalog.c - placeholder until written. */
